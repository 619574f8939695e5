package io.latchkey.jdbc;

class H2JdbcLockOpsTest extends JdbcLockOpsTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }
}
