package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The pessimistic lock of the database itself: {@code SELECT … FOR UPDATE} on one row inside a transaction, and a
 * callback that runs while the transaction holds the row. Other transactions that lock, update or delete the
 * row wait until this one commits or rolls back.
 *
 * <pre>{@code
 * RowLock goods = RowLock.of(dataSource, "seckill_good", "id");
 * boolean sold = goods.withLockedRow(1, Duration.ofSeconds(2), tx -> {
 *     int stock = queryStock(tx, 1);
 *     if (stock == 0) return false;
 *     insertOrder(tx, 1);
 *     decrementStock(tx, 1);
 *     return true;
 * });
 * }</pre>
 *
 * <h2>Connections</h2>
 * Each call holds one connection of the data source, in a transaction, for the whole critical section: size the
 * pool for the number of concurrent critical sections, and keep them short. The callback's work commits with
 * the release of the row lock; if the callback throws, the transaction rolls back and the exception propagates.
 *
 * <h2>Waiting</h2>
 * {@link #withLockedRow(Object, RowCallback)} waits as long as the database's default lock wait allows;
 * {@link #withLockedRow(Object, Duration, RowCallback)} at most {@code lockTimeout} (PostgreSQL
 * {@code lock_timeout}, MariaDB {@code FOR UPDATE WAIT}, MySQL {@code innodb_lock_wait_timeout}, H2
 * {@code LOCK_TIMEOUT}; MariaDB and MySQL count whole seconds, rounded up); {@link #withLockedRowNoWait} fails at
 * once ({@code NOWAIT}). Giving up throws {@link RowLockTimeoutException}; a missing row throws
 * {@link RowNotFoundException}. The waiting thread is blocked in the driver; interrupting it does not cancel the
 * wait.
 *
 * <p>Table and key column are checked to be plain SQL identifiers and the key travels as a bind parameter, so
 * neither can inject SQL. Instances are immutable and thread-safe.
 */
public final class RowLock {

    private final DataSource dataSource;
    private final String table;
    private final String keyColumn;

    private RowLock(DataSource dataSource, String table, String keyColumn) {
        this.dataSource = dataSource;
        this.table = table;
        this.keyColumn = keyColumn;
    }

    /**
     * Row locks on {@code table}, rows chosen by {@code keyColumn} (normally the primary key). Touches no
     * database: the dialect is read from each call's connection.
     *
     * @param dataSource where each call borrows its connection; the caller keeps ownership
     * @param table the table, a plain or schema-qualified SQL identifier
     * @param keyColumn the column that picks the row, a plain SQL identifier
     * @return the row locks of that table
     * @throws IllegalArgumentException if {@code table} or {@code keyColumn} is not a plain SQL identifier
     * @throws NullPointerException if an argument is null
     */
    public static RowLock of(DataSource dataSource, String table, String keyColumn) {
        Objects.requireNonNull(dataSource, "dataSource");
        return new RowLock(dataSource, SqlIdentifiers.qualifiedName("table", table),
                SqlIdentifiers.identifier("keyColumn", keyColumn));
    }

    /**
     * Runs {@code callback} holding the row, waiting for it as long as the database's default lock wait allows
     * (PostgreSQL waits without limit unless the connection sets {@code lock_timeout}; InnoDB's
     * {@code innodb_lock_wait_timeout} is 50 s by default).
     *
     * @param <T> the type of the callback's result
     * @param key the value of the key column of the row, bound as a parameter
     * @param callback the critical section, run on the transaction that holds the row
     * @return what {@code callback} returned, after the transaction committed
     * @throws RowNotFoundException if there is no such row; the transaction was rolled back
     * @throws RowLockTimeoutException if the database's lock wait ran out; the transaction was rolled back
     * @throws IllegalArgumentException if the database is not PostgreSQL, MariaDB/MySQL or H2
     * @throws SQLException if the database fails or {@code callback} throws it; the transaction was rolled back
     */
    public <T> T withLockedRow(Object key, RowCallback<T> callback) throws SQLException {
        return run(key, null, false, callback);
    }

    /**
     * Runs {@code callback} holding the row, waiting for it at most {@code lockTimeout}.
     *
     * @param <T> the type of the callback's result
     * @param key the value of the key column of the row, bound as a parameter
     * @param lockTimeout the longest wait for the row (at least 1 ms; whole seconds, rounded up, on MariaDB and
     *        MySQL); zero fails at once like {@link #withLockedRowNoWait}
     * @param callback the critical section, run on the transaction that holds the row
     * @return what {@code callback} returned, after the transaction committed
     * @throws IllegalArgumentException if {@code lockTimeout} is negative, or the database is not PostgreSQL,
     *         MariaDB/MySQL or H2
     * @throws RowLockTimeoutException if the row stayed locked by another transaction for {@code lockTimeout}
     * @throws RowNotFoundException if there is no such row; the transaction was rolled back
     * @throws SQLException if the database fails or {@code callback} throws it; the transaction was rolled back
     */
    public <T> T withLockedRow(Object key, Duration lockTimeout, RowCallback<T> callback) throws SQLException {
        Objects.requireNonNull(lockTimeout, "lockTimeout");
        if (lockTimeout.isNegative()) {
            throw new IllegalArgumentException(String.format("lockTimeout must not be negative but was %s", lockTimeout));
        }
        return lockTimeout.isZero() ? run(key, null, true, callback) : run(key, lockTimeout, false, callback);
    }

    /**
     * Runs {@code callback} holding the row if it is free now ({@code FOR UPDATE NOWAIT}).
     *
     * @param <T> the type of the callback's result
     * @param key the value of the key column of the row, bound as a parameter
     * @param callback the critical section, run on the transaction that holds the row
     * @return what {@code callback} returned, after the transaction committed
     * @throws RowLockTimeoutException if another transaction holds the row
     * @throws RowNotFoundException if there is no such row; the transaction was rolled back
     * @throws IllegalArgumentException if the database is not PostgreSQL, MariaDB/MySQL or H2
     * @throws SQLException if the database fails or {@code callback} throws it; the transaction was rolled back
     */
    public <T> T withLockedRowNoWait(Object key, RowCallback<T> callback) throws SQLException {
        return run(key, null, true, callback);
    }

    private <T> T run(Object key, Duration timeout, boolean noWait, RowCallback<T> callback) throws SQLException {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(callback, "callback");
        long started = System.nanoTime();
        try (Connection c = dataSource.getConnection()) {
            String product = c.getMetaData().getDatabaseProductName();
            SqlDialect dialect = SqlDialect.ofProductName(product);
            boolean mariaDb = product.toLowerCase(Locale.ROOT).contains("mariadb");
            String[] restore = {null}; // a session's lock wait, set back after the transaction
            try {
                return SqlWork.inTransaction(null, c, tx -> {
                    String suffix = noWait ? " NOWAIT" : "";
                    if (timeout != null) {
                        long ms = Math.max(1, timeout.toMillis());
                        long seconds = Math.max(1, (ms + 999) / 1000);
                        if (dialect == SqlDialect.POSTGRESQL) {
                            exec(tx, "SET LOCAL lock_timeout = '" + ms + "ms'");
                        } else if (dialect == SqlDialect.MYSQL && mariaDb) {
                            suffix = " WAIT " + seconds;
                        } else if (dialect == SqlDialect.MYSQL) {
                            restore[0] = "SET SESSION innodb_lock_wait_timeout = "
                                    + queryLong(tx, "SELECT @@SESSION.innodb_lock_wait_timeout");
                            exec(tx, "SET SESSION innodb_lock_wait_timeout = " + seconds);
                        } else {
                            restore[0] = "SET LOCK_TIMEOUT " + queryLong(tx, "SELECT LOCK_TIMEOUT()");
                            exec(tx, "SET LOCK_TIMEOUT " + ms);
                        }
                    }
                    lockRow(tx, key, "SELECT " + keyColumn + " FROM " + table + " WHERE " + keyColumn
                            + " = ? FOR UPDATE" + suffix, started, noWait ? "NOWAIT" : timeout == null
                                    ? "the database's lock wait" : "lock timeout " + timeout);
                    return callback.apply(tx);
                });
            } finally {
                if (restore[0] != null) {
                    exec(c, restore[0]);
                }
            }
        }
    }

    private void lockRow(Connection c, Object key, String select, long started, String wait) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(select)) {
            ps.setObject(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new RowNotFoundException(String.format("no row in %s with %s = %s to lock", table,
                            keyColumn, key));
                }
            }
        } catch (SQLException e) {
            if (isLockTimeout(e)) {
                Duration waited = Duration.ofNanos(System.nanoTime() - started);
                throw new RowLockTimeoutException(String.format("the row of %s with %s = %s is locked by another "
                        + "transaction; gave up after %d ms (%s)", table, keyColumn, key, waited.toMillis(), wait),
                        waited, e);
            }
            throw e;
        }
    }

    static boolean isLockTimeout(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLException s && ("55P03".equals(s.getSQLState()) // PostgreSQL NOWAIT, lock_timeout
                    || s.getErrorCode() == 1205 || s.getErrorCode() == 3572 // MariaDB/MySQL lock wait timeout, NOWAIT
                    || s.getErrorCode() == 50200 || "HYT00".equals(s.getSQLState()))) { // H2 lock timeout
                return true;
            }
        }
        return false;
    }

    private static void exec(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static long queryLong(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return Long.parseLong(rs.getString(1).trim());
        }
    }

    @Override
    public String toString() {
        return "RowLock{" + table + "." + keyColumn + "}";
    }
}
