package io.latchkey.jdbc.tck;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.jdbc.JdbcAdvisoryLockClient;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One pool per database for the advisory-lock TCK suites: each held advisory lock keeps a connection, so the
 * pool is larger than a lease-table client's. Lives as long as the test JVM.
 */
final class AdvisoryPools {

    private static final Map<String, HikariDataSource> POOLS = new ConcurrentHashMap<>();

    private AdvisoryPools() {
    }

    static LockClient client(String jdbcUrl, ClientOptions options) {
        HikariDataSource ds = POOLS.computeIfAbsent(jdbcUrl, url -> {
            HikariConfig c = new HikariConfig();
            c.setJdbcUrl(url);
            c.setMaximumPoolSize(40);
            c.setMinimumIdle(2);
            c.setConnectionTimeout(5_000);
            c.setPoolName("tck-advisory");
            return new HikariDataSource(c);
        });
        return JdbcAdvisoryLockClient.create(ds, options);
    }
}
