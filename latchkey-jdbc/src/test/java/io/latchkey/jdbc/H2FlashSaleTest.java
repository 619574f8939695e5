package io.latchkey.jdbc;

class H2FlashSaleTest extends FlashSaleTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.H2;
    }
}
