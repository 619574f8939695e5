package io.latchkey.jdbc;

class PostgresAdvisoryLockTest extends AdvisoryLockTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
