package io.latchkey.jdbc;

class MariaDbLeaseTableLockOpsTest extends LeaseTableLockOpsTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }
}
