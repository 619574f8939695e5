package io.latchkey.jdbc;

class H2LeaseTableLockOpsTest extends LeaseTableLockOpsTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }
}
