package io.latchkey.jdbc;

import io.latchkey.core.CountKind;
import io.latchkey.core.RemoteCountOps;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the SQL counted primitives share: one kind ({@link CountKind}, its label in the {@code kind} column) of one
 * namespace in the counts table beside the client's lease table. Every operation is one task on the client's I/O pool
 * with one pooled connection, under the client's operation timeout, after the tables were checked once ({@link
 * LazyTables}). Each decision is one conditional statement or, where it reads more than one row (a leased permit,
 * draining), one short transaction that locks the name's counts row first. Wake-ups: {@link Wakeups}.
 */
abstract class JdbcCountOps implements RemoteCountOps {

    /** The engine's fallback re-check on PostgreSQL, where changes are pushed and a lost one costs this delay. */
    static final long PUSHED_RECHECK_MILLIS = 1_000;
    /** How often a client deletes ended permits and take records. */
    static final long REAP_INTERVAL_SECONDS = 60;

    /** What every counted primitive of one client shares. */
    record Tables(JdbcRunner runner, CountTableSql sql, LazyTables schema, Wakeups wakeups, String namespace,
                  long pollMillis) {
    }

    final JdbcRunner runner;
    final CountTableSql sql;
    final LazyTables schema;
    final Wakeups wakeups;
    final String namespace;
    final String kind;
    private final long pollMillis;
    /** Whether the reaper runs: from the first take on (a client that takes nothing starts none). */
    private final AtomicBoolean reaping = new AtomicBoolean();

    JdbcCountOps(Tables t, CountKind kind) {
        this.runner = t.runner();
        this.sql = t.sql();
        this.schema = t.schema();
        this.wakeups = t.wakeups();
        this.namespace = t.namespace();
        this.kind = kind.label();
        this.pollMillis = t.pollMillis();
    }

    /** The row key of {@code name}: as the lock rows' ({@link LeaseTableRows#keyPrefix}). */
    final String rowKey(String name) {
        return LeaseTableRows.keyPrefix(namespace) + name;
    }

    /** The key of {@code name}'s wake-ups. */
    final String wakeKey(String name) {
        return Wakeups.key(kind, rowKey(name));
    }

    /**
     * Starts, once, deleting every {@value #REAP_INTERVAL_SECONDS} s what {@code reap} deletes (on the client's timer,
     * handed to an I/O thread, once the tables exist); {@code what} names it in the log.
     */
    final void startReaper(String what, SqlWork<Integer> reap) {
        if (reaping.compareAndSet(false, true)) {
            runner.every(REAP_INTERVAL_SECONDS, what + " of " + sql.permits, schema::isReady, () -> runner.call(
                    "delete " + what + " of " + sql.permits,
                    c -> JdbcRunner.inBatches(c, CountTableSql.REAP_BATCH, reap)));
        }
    }

    /** Runs {@code work} for {@code name} on an I/O thread once the tables exist. */
    final <T> CompletableFuture<T> run(String op, String name, SqlWork<T> work) {
        return run(op + " " + kind + " '" + name + "'", work);
    }

    /** Runs {@code work} on an I/O thread once the tables exist; {@code what} names it in errors. */
    final <T> CompletableFuture<T> run(String what, SqlWork<T> work) {
        return schema.ready().thenCompose(v -> runner.async(what, work));
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return wakeups.subscribe(wakeKey(name), changed);
    }

    @Override
    public long recheckMillis() {
        return wakeups.pushes() ? PUSHED_RECHECK_MILLIS : pollMillis;
    }

    /** The counts row's value ({@code statement} selects it by kind and key), or {@code null} if there is none. */
    final Long count(Connection c, String statement, String key) throws SQLException {
        return runner.queryLong(c, statement, kind, key);
    }

    final int execute(Connection c, String statement, Object... params) throws SQLException {
        return runner.update(c, statement, params);
    }

    /**
     * Inserts the counts row; {@code false} if it exists (a unique-key violation, any dialect: SQLState class 23).
     * Only outside a transaction: on PostgreSQL the violation would abort it.
     */
    final boolean insertCount(Connection c, String key, long value) throws SQLException {
        try {
            execute(c, sql.insertCount, kind, key, value);
            return true;
        } catch (SQLException e) {
            if (e.getSQLState() != null && e.getSQLState().startsWith("23")) {
                return false;
            }
            throw e;
        }
    }

    /** Both semaphores' {@code trySetPermits}: inserts the row unless it exists; positive permits wake waiters. */
    final CompletableFuture<Boolean> setCountOnce(String name, int permits) {
        String key = rowKey(name);
        return run("set the permits of", name, c -> {
            boolean set = insertCount(c, key, permits);
            if (set && permits > 0) {
                wakeups.changed(c, wakeKey(name));
            }
            return set;
        });
    }

    /**
     * Both semaphores' {@code addPermits}: adds {@code delta} to the row (one that was never set starts from 0); added
     * permits wake waiters. Sent once.
     */
    final CompletableFuture<Void> addToCount(String op, String name, int delta) {
        String key = rowKey(name);
        return run(op, name, c -> {
            insertUnlessUpdated(c, key, delta, execute(c, sql.addToCount, (long) delta, kind, key));
            if (delta > 0) {
                wakeups.changed(c, wakeKey(name));
            }
            return null;
        });
    }

    /**
     * After an update of the row by {@code delta} that changed {@code updated} rows: inserts the row when there was
     * none, or updates it again when another client inserted it first.
     */
    final void insertUnlessUpdated(Connection c, String key, int delta, int updated) throws SQLException {
        while (updated == 0 && !insertCount(c, key, delta)) {
            updated = execute(c, sql.addToCount, (long) delta, kind, key);
        }
    }

    /** {@link SqlWork#inTransaction} in this table's dialect. */
    final <T> T inTransaction(Connection c, SqlWork<T> work) throws SQLException {
        return SqlWork.inTransaction(sql.dialect, c, work);
    }

    /** An int count, clamped. */
    static int clamp(long v) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, v));
    }
}
