package io.latchkey.jdbc;

class MariaDbJdbcLockOpsTest extends JdbcLockOpsTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }
}
