package io.latchkey.jdbc;

class H2RowLockAndFencingTest extends RowLockAndFencingTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }
}
