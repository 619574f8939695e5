package io.latchkey.jdbc.tck;

/** The TCK's {@link io.latchkey.tck.ServerStateTck} on a MariaDb lease table. */
class MariaDbServerStateTckTest extends JdbcServerStateTck {

    @Override
    String url() {
        return JdbcTckDatabases.mariaDb();
    }
}
