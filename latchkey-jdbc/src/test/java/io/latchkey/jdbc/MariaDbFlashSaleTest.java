package io.latchkey.jdbc;

class MariaDbFlashSaleTest extends FlashSaleTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }
}
