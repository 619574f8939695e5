package io.latchkey.jdbc;

class PostgresJdbcLockOpsTest extends JdbcLockOpsTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
