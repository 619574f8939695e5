package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** A piece of JDBC work on a borrowed connection. */
@FunctionalInterface
interface SqlWork<T> {
    T run(Connection connection) throws SQLException;

    /**
     * Runs {@code work} in one transaction on {@code c}: committed if it returns, rolled back if it throws, the
     * connection's auto-commit restored either way. With a {@code dialect}, for the counted primitives and the fenced
     * store, at READ COMMITTED or weaker where the dialect needs it: a statement after a {@code SELECT … FOR UPDATE}
     * must see what the transaction that held the lock committed. (MariaDB's REPEATABLE READ takes its snapshot at the
     * first plain read, which comes after the locking one, so it is left alone.) With {@code null}, at the
     * connection's own isolation.
     */
    static <T> T inTransaction(SqlDialect dialect, Connection c, SqlWork<T> work) throws SQLException {
        boolean auto = c.getAutoCommit();
        int isolation = dialect == null ? 0 : c.getTransactionIsolation();
        boolean weaken = dialect != null && dialect != SqlDialect.MYSQL
                && isolation > Connection.TRANSACTION_READ_COMMITTED;
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
        } catch (Throwable e) {
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
