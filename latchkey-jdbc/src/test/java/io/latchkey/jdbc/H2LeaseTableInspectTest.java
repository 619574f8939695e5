package io.latchkey.jdbc;

class H2LeaseTableInspectTest extends LeaseTableInspectTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }
}
