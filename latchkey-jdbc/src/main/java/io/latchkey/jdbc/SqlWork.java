package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** A piece of JDBC work on a borrowed connection. */
@FunctionalInterface
interface SqlWork<T> {
    T run(Connection connection) throws SQLException;

    /**
     * Runs {@code work} in one transaction on {@code c} (rolled back if it throws) at READ COMMITTED or weaker where
     * the dialect needs it, for the counted primitives and the fenced store: a statement after a
     * {@code SELECT … FOR UPDATE} must see what the transaction that held the lock committed. (MariaDB's REPEATABLE
     * READ takes its snapshot at the first plain read, which comes after the locking one, so it is left alone.)
     */
    static <T> T inTransaction(SqlDialect dialect, Connection c, SqlWork<T> work) throws SQLException {
        boolean auto = c.getAutoCommit();
        int isolation = c.getTransactionIsolation();
        boolean weaken = dialect != SqlDialect.MYSQL && isolation > Connection.TRANSACTION_READ_COMMITTED;
        if (auto) {
            c.setAutoCommit(false);
        }
        if (weaken) {
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        }
        try {
            T result = work.run(c);
            c.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            if (weaken) {
                c.setTransactionIsolation(isolation);
            }
            if (auto) {
                c.setAutoCommit(true);
            }
        }
    }
}
