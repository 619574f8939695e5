package io.latchkey.jdbc;

import io.latchkey.core.CountKind;
import io.latchkey.core.RemoteCountOps;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;

/**
 * What the SQL counted primitives share: one kind ({@link CountKind}, its label in the {@code kind} column) of one
 * namespace in the counts table beside the client's lease table. Every operation is one task on the client's I/O pool
 * with one pooled connection, under the client's operation timeout, after the tables were checked once ({@link
 * CountTableSchema}); the caller's thread never runs a statement. Each decision is one conditional statement or, where
 * it reads more than one row (a leased permit, draining), one short transaction that locks the name's counts row first.
 * Wake-ups: {@link CountWakeups}.
 */
abstract class JdbcCountOps implements RemoteCountOps {

    /** The engine's fallback re-check on PostgreSQL, where changes are pushed and a lost one costs this delay. */
    static final long PUSHED_RECHECK_MILLIS = 1_000;

    final JdbcRunner runner;
    final CountTableSql sql;
    final CountTableSchema schema;
    final CountWakeups wakeups;
    final String namespace;
    final String kind;
    private final long pollMillis;

    /**
     * @param pollMillis the re-check interval on databases that push nothing ({@link JdbcOptions#maxPollInterval()})
     */
    JdbcCountOps(JdbcRunner runner, CountTableSql sql, CountTableSchema schema, CountWakeups wakeups, String namespace,
                 CountKind kind, long pollMillis) {
        this.runner = runner;
        this.sql = sql;
        this.schema = schema;
        this.wakeups = wakeups;
        this.namespace = namespace;
        this.kind = kind.label();
        this.pollMillis = pollMillis;
    }

    /** The row key of {@code name}: as the lock rows' ({@link LeaseTableRows#keyPrefix}). */
    final String rowKey(String name) {
        return LeaseTableRows.keyPrefix(namespace) + name;
    }

    /** The key of {@code name}'s wake-ups. */
    final String wakeKey(String name) {
        return CountWakeups.key(kind, rowKey(name));
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

    // ------------------------------------------------------------------------------------- shared statements

    /** The counts row's value ({@code statement} selects it by kind and key), or {@code null} if there is none. */
    final Long count(Connection c, String statement, String key) throws SQLException {
        return queryLong(c, statement, kind, key);
    }

    /** Runs a query with {@code params} bound in order; its first row's first column, {@code null} if no row. */
    final Long queryLong(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, params); ResultSet rs = ps.executeQuery()) {
            return rs.next() ? rs.getLong(1) : null;
        }
    }

    /** Runs an update with {@code params} bound in order; returns the rows it changed. */
    final int execute(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = prepare(c, statement, params)) {
            return ps.executeUpdate();
        }
    }

    final PreparedStatement prepare(Connection c, String statement, Object... params) throws SQLException {
        PreparedStatement ps = c.prepareStatement(statement);
        try {
            runner.limit(ps);
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps;
        } catch (SQLException | RuntimeException e) {
            ps.close();
            throw e;
        }
    }

    /**
     * Inserts the counts row; {@code false} if it exists (a unique-key violation, any dialect). Only outside a
     * transaction: on PostgreSQL the violation would abort it.
     */
    final boolean insertCount(Connection c, String key, long value) throws SQLException {
        try {
            execute(c, sql.insertCount, kind, key, value);
            return true;
        } catch (SQLException e) {
            if (isDuplicate(e)) {
                return false;
            }
            throw e;
        }
    }

    /** A unique-key violation: SQLState class 23 (PostgreSQL and H2 23505, MariaDB 23000). */
    static boolean isDuplicate(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("23");
    }

    /**
     * Both semaphores' {@code trySetPermits}: inserts the row unless it exists; positive permits wake waiters.
     */
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
     * Both semaphores' {@code addPermits} and the semaphore's {@code give}: adds {@code delta} to the row (one that
     * was never set starts from 0); added permits wake waiters. Sent once: an update, or an insert when there is no
     * row, or the update again when another client inserted it first.
     */
    final CompletableFuture<Void> addToCount(String op, String name, int delta) {
        String key = rowKey(name);
        return run(op, name, c -> {
            while (execute(c, sql.addToCount, (long) delta, kind, key) == 0 && !insertCount(c, key, delta)) {
                // inserted by someone else since the update: update it
            }
            if (delta > 0) {
                wakeups.changed(c, wakeKey(name));
            }
            return null;
        });
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
