package io.latchkey.jdbc;

class PostgresSemaphoreLostAnswerTest extends SemaphoreLostAnswerTest {
    @Override
    SqlDialect dialect() {
        return SqlDialect.POSTGRESQL;
    }
}
