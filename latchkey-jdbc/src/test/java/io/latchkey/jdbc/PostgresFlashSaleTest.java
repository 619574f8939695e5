package io.latchkey.jdbc;

class PostgresFlashSaleTest extends FlashSaleTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
