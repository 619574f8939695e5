/**
 * The SQL backend of Latchkey: distributed locks in PostgreSQL, MariaDB/MySQL and H2, and the database's own
 * pessimistic and optimistic locking patterns.
 *
 * <ul>
 *   <li>{@link io.latchkey.jdbc.JdbcLockClient}: the lease-table {@link io.latchkey.DistributedLock} — one row per
 *       lock name, decided on the database's clock, fencing tokens that never go back, batched watchdog renewal,
 *       {@code LISTEN/NOTIFY} wake-ups on PostgreSQL. Also reached through {@code LockClient.connect("jdbc:…")}.</li>
 *   <li>{@link io.latchkey.jdbc.JdbcAdvisoryLockClient}: the same interface on the database's advisory locks
 *       ({@code pg_advisory_lock}, {@code GET_LOCK}), for teams that want no lock table.</li>
 *   <li>{@link io.latchkey.jdbc.RowLock}: {@code SELECT … FOR UPDATE} around a callback (the pessimistic lock).</li>
 *   <li>{@link io.latchkey.jdbc.VersionCas}: read, compute, {@code UPDATE … WHERE version = ?}, retry (the
 *       optimistic lock).</li>
 *   <li>{@link io.latchkey.jdbc.FencingGuard}: the resource side of fencing, refusing writes with stale tokens.</li>
 * </ul>
 *
 * <p>Schemas: {@link io.latchkey.jdbc.SqlDialect#lockTableDdl(String)} and
 * {@link io.latchkey.jdbc.SqlDialect#fencingTableDdl(String)} print the DDL for teams that manage schemas
 * themselves; by default the tables are created on first use.
 */
package io.latchkey.jdbc;
