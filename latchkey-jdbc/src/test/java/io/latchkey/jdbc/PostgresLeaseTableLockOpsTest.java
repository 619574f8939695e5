package io.latchkey.jdbc;

class PostgresLeaseTableLockOpsTest extends LeaseTableLockOpsTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
