package io.latchkey.jdbc;

class PostgresLeaseTableInspectTest extends LeaseTableInspectTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
