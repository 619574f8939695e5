package io.latchkey.jdbc;

class MariaDbSemaphoreLostAnswerTest extends SemaphoreLostAnswerTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.MYSQL;
    }
}
