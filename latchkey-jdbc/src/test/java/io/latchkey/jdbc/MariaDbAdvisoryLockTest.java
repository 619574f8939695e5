package io.latchkey.jdbc;

class MariaDbAdvisoryLockTest extends AdvisoryLockTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }
}
