package io.latchkey.jdbc.tck;

import io.latchkey.testing.sql.MariaDbServer;
import java.time.Duration;
import io.latchkey.testing.sql.PostgresServer;

/** The JDBC URLs the TCK suites connect to: the JVM's shared real servers, and one in-memory H2 database. */
final class JdbcTckDatabases {

    static final String H2 = "jdbc:h2:mem:latchkey-tck;DB_CLOSE_DELAY=-1";

    /**
     * The TCK's watchdog timeout for SQL backends: 1.5 s instead of 0.6 s, because one renewal is a database
     * round trip through a pool, and on a 2-core CI machine shared by parallel builds a 400 ms stall of the
     * renewal (the margin 0.6 s leaves) is not rare. Production defaults are 30 s.
     */
    static final Duration WATCHDOG = Duration.ofMillis(1500);

    private JdbcTckDatabases() {
    }

    static String postgres() {
        return PostgresServer.shared().jdbcUrl();
    }

    static String mariaDb() {
        return MariaDbServer.shared().jdbcUrl();
    }
}
