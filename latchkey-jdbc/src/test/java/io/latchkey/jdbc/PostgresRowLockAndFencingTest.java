package io.latchkey.jdbc;

class PostgresRowLockAndFencingTest extends RowLockAndFencingTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
