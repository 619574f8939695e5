package io.latchkey.jdbc;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.core.Recipes;
import io.latchkey.core.TimeSource;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;

/**
 * A {@link io.latchkey.LockClient} whose locks are the database's own advisory locks, for teams that want no lock
 * table: PostgreSQL's session-level {@code pg_advisory_lock} (names hashed to 64-bit keys) or MySQL/MariaDB's
 * {@code GET_LOCK} (names hashed to {@code latchkey:<hex>}). H2 has no advisory locks.
 *
 * <pre>{@code
 * try (LockClient client = JdbcAdvisoryLockClient.create(dataSource)) {
 *     DistributedLock lock = client.lock("nightly-report");
 *     if (lock.tryLock()) { try { run(); } finally { lock.unlock(); } }
 * }
 * }</pre>
 *
 * <h2>Connections and leases</h2>
 * Each held lock keeps one connection of the data source for as long as it is held (the lock belongs to that
 * session): size the pool for the number of locks held at once plus one. The lock is freed when it is released
 * or when its session ends — so a crashed process frees its locks as soon as the database notices the closed
 * connection. A watchdog lock is renewed by checking that its session is alive; a fixed lease is ended by the
 * client when it runs out (a paused client may therefore hold past it: use fencing tokens).
 *
 * <h2>Waiting</h2>
 * The database queues waiters and wakes the next one on release, with no polling; a waiting name blocks one
 * thread of the client's waiter pool (threads of one JVM waiting on one name share it).
 *
 * <h2>Hash collisions</h2>
 * Two names share a PostgreSQL key with probability about n²/2⁶⁵ for n names (≈3·10⁻⁸ for a million): they then
 * exclude each other, which costs waiting, never safety. Advisory keys are shared with any other code in the same
 * database that uses advisory locks (migration tools do): pick a dedicated database or the lease table if that
 * matters.
 *
 * <h2>Fencing tokens</h2>
 * PostgreSQL: the transaction id of a statement run after the lock was taken (64-bit, never reused). MariaDB and
 * MySQL: {@code UUID_SHORT()}, increasing while the server clock does not go back across restarts. No fenced store:
 * an advisory lock leaves no row for a store's write to check in its transaction (use the lease table,
 * {@link JdbcLockClient}, or {@link FencingGuard}).
 *
 * <h2>Administration</h2>
 * {@code forceUnlock} ends the holder's session ({@code pg_terminate_backend} / {@code KILL CONNECTION}), which
 * needs the corresponding privilege.
 *
 * <h2>Connection poolers</h2>
 * Advisory locks need the data source's connections to be sessions: directly to the database or through a pooler
 * in session mode. On PostgreSQL, {@link #create} checks that a notification sent on one connection arrives on
 * another (a few milliseconds) and refuses a pooler in transaction mode (PgBouncer's {@code pool_mode =
 * transaction}), where the lock would stay on a server connection that the next client gets.
 */
public final class JdbcAdvisoryLockClient extends AbstractLockClient {

    private final SqlDialect dialect;
    private final JdbcRunner runner;
    private final JdbcAdvisoryLockOps ops;

    private JdbcAdvisoryLockClient(DataSource dataSource, ClientOptions options, SqlDialect dialect, String server) {
        super("jdbc-advisory", options, TimeSource.SYSTEM);
        this.dialect = dialect;
        String prefix = "latchkey-jdbc-" + clientId().substring(0, 8);
        this.runner = new JdbcRunner(dataSource, server, options.operationTimeout(), 4, prefix, scheduler(), false);
        this.ops = new JdbcAdvisoryLockOps(dataSource, dialect, options.namespace(), time(), runner, prefix);
    }

    /**
     * A client with default options on {@code dataSource} (which the caller keeps).
     *
     * @param dataSource where the client borrows its connections, one per held lock; not closed by {@link #close()}
     * @return a client, open until {@link #close()}
     * @throws IllegalArgumentException if the database is neither PostgreSQL nor MySQL/MariaDB
     * @throws LockUnavailableException if it cannot be reached or only reads (a standby, read-only)
     */
    public static JdbcAdvisoryLockClient create(DataSource dataSource) {
        return create(dataSource, ClientOptions.defaults());
    }

    /**
     * A client on {@code dataSource} (which the caller keeps).
     *
     * @param dataSource where the client borrows its connections, one per held lock; not closed by {@link #close()}
     * @param options the backend-neutral options (namespace, watchdog and operation timeouts, event listener)
     * @return a client, open until {@link #close()}
     * @throws IllegalArgumentException if the database is neither PostgreSQL nor MySQL/MariaDB
     * @throws IllegalStateException if PostgreSQL's connections go through a pooler in transaction mode (such as
     *         PgBouncer with {@code pool_mode = transaction}), where a session does not outlive a transaction
     * @throws LockUnavailableException if it cannot be reached or only reads (a standby, read-only)
     */
    public static JdbcAdvisoryLockClient create(DataSource dataSource, ClientOptions options) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(options, "options");
        try (Connection c = dataSource.getConnection()) {
            DatabaseMetaData md = c.getMetaData();
            SqlDialect dialect = SqlDialect.of(md);
            if (dialect == SqlDialect.H2) {
                throw new IllegalArgumentException(
                        "advisory locks need PostgreSQL or MariaDB/MySQL; H2 has none (use JdbcLockClient)");
            }
            WritableCheck.require(c, dialect, JdbcUrls.redact(md.getURL()));
            if (dialect == SqlDialect.POSTGRESQL && !SessionProbe.notificationsArrive(c, dataSource, SessionProbe.WAIT)) {
                throw new IllegalStateException(String.format("advisory locks belong to a database session, but the "
                        + "connections to %s go through %s, which hands the session to another client after each "
                        + "transaction (a notification sent on one connection did not arrive on another): locks would "
                        + "be held by whoever gets that server connection next. Use JdbcLockClient (the lease table "
                        + "works through such a pooler), a pooler in session mode, or a direct URL",
                        JdbcUrls.redact(md.getURL()), SessionProbe.POOLER));
            }
            return new JdbcAdvisoryLockClient(dataSource, options, dialect, JdbcUrls.redact(md.getURL()));
        } catch (SQLException e) {
            throw new LockUnavailableException(String.format("could not connect to the lock database: %s (SQLState %s)",
                    e.getMessage(), e.getSQLState()), e);
        }
    }

    /**
     * The dialect in use, detected from the database when the client was created.
     *
     * @return {@link SqlDialect#POSTGRESQL} or {@link SqlDialect#MYSQL}, never {@link SqlDialect#H2}
     */
    public SqlDialect dialect() {
        return dialect;
    }

    /** The remote halves of the primitives this backend offers (see the class comment). */
    @Override
    protected Recipes recipes() {
        return Recipes.builder()
                .lock(ops)
                .build();
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(Capability.LOCK, Capability.PUSH_WAKEUP);
    }

    @Override
    protected void closeBackend() {
        ops.close();
        runner.close();
    }

    @Override
    public String toString() {
        return "JdbcAdvisoryLockClient{" + runner.server() + ", dialect=" + dialect + ", id=" + clientId() + "}";
    }
}
