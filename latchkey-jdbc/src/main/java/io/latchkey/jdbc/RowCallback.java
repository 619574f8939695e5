package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * The critical section of a {@link RowLock}: runs inside the transaction that holds the row lock, on its
 * connection. It must not commit, roll back or close the connection: the row lock does that.
 */
@FunctionalInterface
public interface RowCallback<T> {
    T apply(Connection transaction) throws SQLException;
}
