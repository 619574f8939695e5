package io.latchkey.cli;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The connection pool of one simulated client, for strategies built on the SQL backend's helpers (which borrow a
 * connection per call, as a service's pool would lend them). Sized for the client's buyer threads.
 */
final class NodeDataSource {

    private NodeDataSource() {
    }

    static HikariDataSource open(String jdbcUrl, String strategy, int index, int threads) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setPoolName("latchkey-demo-" + strategy + "-c" + index);
        // One per buyer thread: RowLock holds one per purchase, VersionCas borrows one at a time.
        config.setMaximumPoolSize(threads);
        config.setMinimumIdle(threads);
        config.setConnectionTimeout(30_000);
        return new HikariDataSource(config);
    }
}
