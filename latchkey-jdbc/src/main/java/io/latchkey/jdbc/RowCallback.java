package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The critical section of a {@link RowLock}: runs inside the transaction that holds the row lock, on its
 * connection. It must not commit, roll back or close the connection: the row lock does that.
 *
 * <p>Also the extra work of a {@link CasUpdate#andThen} and the write of a {@link FencingGuard#write}, under the
 * same rules.
 *
 * @param <T> the type of the result
 */
@FunctionalInterface
public interface RowCallback<T> {
    /**
     * Does the work inside the transaction. Throwing rolls the transaction back and the exception propagates to
     * the caller of the method that ran this callback.
     *
     * @param transaction the connection, with auto-commit off, of the transaction that holds the lock
     * @return the result (may be {@code null}): returned as is by {@link RowLock} and {@link FencingGuard#write},
     *         ignored for {@link CasUpdate#andThen}
     * @throws SQLException if a statement fails
     */
    T apply(Connection transaction) throws SQLException;
}
