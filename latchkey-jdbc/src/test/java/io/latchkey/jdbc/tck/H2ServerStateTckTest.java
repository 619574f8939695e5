package io.latchkey.jdbc.tck;

/** The TCK's {@link io.latchkey.tck.ServerStateTck} on a H2 lease table. */
class H2ServerStateTckTest extends JdbcServerStateTck {

    @Override
    String url() {
        return JdbcTckDatabases.H2;
    }
}
