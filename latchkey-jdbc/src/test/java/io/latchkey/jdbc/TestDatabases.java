package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.testing.sql.MariaDbServer;
import io.latchkey.testing.sql.PostgresServer;
import java.util.concurrent.atomic.AtomicInteger;

/** Data sources on the three databases the tests run against: the shared real servers and in-memory H2. */
final class TestDatabases {

    private static final AtomicInteger H2_DBS = new AtomicInteger();

    private TestDatabases() {
    }

    static String jdbcUrl(SqlDialect dialect) {
        switch (dialect) {
            case POSTGRESQL:
                return PostgresServer.shared().jdbcUrl();
            case MYSQL:
                return MariaDbServer.shared().jdbcUrl();
            default:
                return "jdbc:h2:mem:latchkey" + H2_DBS.incrementAndGet() + ";DB_CLOSE_DELAY=-1";
        }
    }

    /** A pool of at most {@code size} connections on a database of {@code dialect}. */
    static HikariDataSource pool(String jdbcUrl, int size) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(jdbcUrl);
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(1);
        c.setConnectionTimeout(30_000); // row-lock tests queue many buyers behind few connections
        return new HikariDataSource(c);
    }

    /** A unique table name for one test. */
    static String table(String prefix) {
        return prefix + "_" + Long.toHexString(System.nanoTime() & 0xffffffffL);
    }
}
