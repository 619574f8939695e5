package io.latchkey.jdbc;

class MariaDbRowLockAndFencingTest extends RowLockAndFencingTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }
}
