package io.latchkey.jdbc;

class MariaDbLeaseTableInspectTest extends LeaseTableInspectTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }
}
