package io.latchkey.jdbc.tck;

/** The TCK's {@link io.latchkey.tck.ServerStateTck} on a Postgres lease table. */
class PostgresServerStateTckTest extends JdbcServerStateTck {

    @Override
    String url() {
        return JdbcTckDatabases.postgres();
    }
}
