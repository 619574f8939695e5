package io.latchkey.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** A piece of JDBC work on a borrowed connection. */
@FunctionalInterface
interface SqlWork<T> {
    T run(Connection connection) throws SQLException;
}
