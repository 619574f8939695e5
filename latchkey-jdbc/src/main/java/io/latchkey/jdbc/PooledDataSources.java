package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.ConnectFailures;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/** The small HikariCP pools behind {@code jdbc:} URIs. */
final class PooledDataSources {

    private static final AtomicInteger POOLS = new AtomicInteger();

    private PooledDataSources() {
    }

    static HikariDataSource open(String jdbcUrl, int poolSize, Duration operationTimeout) {
        String url = withLoginTimeout(driverUrl(jdbcUrl), operationTimeout);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setPoolName("latchkey-jdbc-pool-" + POOLS.incrementAndGet());
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(Math.max(250, operationTimeout.toMillis()));
        config.setValidationTimeout(Math.max(250, Math.min(operationTimeout.toMillis(), 5_000)));
        config.setAutoCommit(true);
        try {
            return new HikariDataSource(config);
        } catch (RuntimeException e) {
            String cause = ConnectFailures.describe(e);
            if (cause != null) {
                throw new LockUnavailableException(String.format("cannot connect to %s: %s", JdbcUrls.redact(jdbcUrl),
                        cause.replace(jdbcUrl, JdbcUrls.redact(jdbcUrl))), e);
            }
            throw new LockUnavailableException(String.format("could not open a connection pool to %s: %s",
                    JdbcUrls.redact(jdbcUrl), e.getMessage() == null ? e.getClass().getSimpleName()
                            : e.getMessage().replace(jdbcUrl, JdbcUrls.redact(jdbcUrl))), e);
        }
    }

    /**
     * {@code url} with the driver's bound on opening a connection set to the operation timeout, unless the URL sets
     * it: PgJDBC has none by default (a server that never answers its start-up message, such as Redis, keeps
     * {@code connect} waiting for ever), MariaDB Connector/J waits 30 s.
     */
    static String withLoginTimeout(String url, Duration timeout) {
        String lower = url.toLowerCase(Locale.ROOT);
        String parameter;
        if (lower.startsWith("jdbc:postgresql:")) {
            parameter = "loginTimeout=" + Math.max(1, (timeout.toMillis() + 999) / 1000);
        } else if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
            parameter = "connectTimeout=" + Math.max(1, timeout.toMillis());
        } else {
            return url;
        }
        String name = parameter.substring(0, parameter.indexOf('=') + 1).toLowerCase(Locale.ROOT);
        if (lower.contains("?" + name) || lower.contains("&" + name)) {
            return url;
        }
        return url + (url.indexOf('?') >= 0 ? "&" : "?") + parameter;
    }

    /** {@code jdbc:mysql:} goes to MariaDB Connector/J (which wants its own scheme) when MySQL's is absent. */
    static String driverUrl(String jdbcUrl) {
        try {
            DriverManager.getDriver(jdbcUrl);
            return jdbcUrl;
        } catch (SQLException notAccepted) {
            if (jdbcUrl.toLowerCase(Locale.ROOT).startsWith("jdbc:mysql:")) {
                String mariadb = "jdbc:mariadb:" + jdbcUrl.substring("jdbc:mysql:".length());
                try {
                    DriverManager.getDriver(mariadb);
                    return mariadb;
                } catch (SQLException alsoNot) {
                    // fall through to the error below
                }
            }
            throw new IllegalArgumentException(String.format(
                    "no JDBC driver on the class path accepts %s; add org.postgresql:postgresql, "
                            + "org.mariadb.jdbc:mariadb-java-client or com.h2database:h2", JdbcUrls.redact(jdbcUrl)));
        }
    }
}
