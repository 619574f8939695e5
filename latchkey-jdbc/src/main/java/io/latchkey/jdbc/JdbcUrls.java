package io.latchkey.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.ConnectFailures;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code jdbc:} URLs: as they may appear in messages (without user info, query string or H2 settings: passwords),
 * the client's own {@code latchkey.} parameters, and the small HikariCP pools behind {@code jdbc:} URIs.
 */
final class JdbcUrls {

    /** The prefix of the URL parameters that are the client's, not the driver's. */
    static final String PARAM_PREFIX = "latchkey.";
    private static final AtomicInteger POOLS = new AtomicInteger();

    private JdbcUrls() {
    }

    static String redact(String url) {
        if (url == null) {
            return "unknown database";
        }
        String u = url.split("[?;]", 2)[0];
        int slashes = u.indexOf("//");
        if (slashes >= 0) {
            int at = u.indexOf('@', slashes + 2);
            int slash = u.indexOf('/', slashes + 2);
            if (at >= 0 && (slash < 0 || at < slash)) {
                u = u.substring(0, slashes + 2) + u.substring(at + 1);
            }
        }
        return u;
    }

    /**
     * {@code options} with the client's own parameters of {@code url} applied ({@code latchkey.pooling=detect|session|
     * transaction}, {@code latchkey.listenUrl=<URL-encoded jdbc:postgresql: URL>}).
     *
     * @throws IllegalArgumentException for an unknown {@code latchkey.} parameter or a bad value
     */
    static JdbcOptions applyParams(String url, JdbcOptions options) {
        List<String> ours = params(url, true);
        if (ours.isEmpty()) {
            return options;
        }
        JdbcOptions.Builder b = JdbcOptions.Builder.from(options);
        for (String p : ours) {
            int eq = p.indexOf('=');
            String name = eq < 0 ? p : p.substring(0, eq);
            String value = URLDecoder.decode(eq < 0 ? "" : p.substring(eq + 1), StandardCharsets.UTF_8);
            if (name.equals("latchkey.pooling")) {
                try {
                    b.pooling(JdbcOptions.Pooling.valueOf(value.toUpperCase(Locale.ROOT)));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(String.format(
                            "latchkey.pooling must be detect, session or transaction but was '%s'", value), e);
                }
            } else if (name.equals("latchkey.listenUrl")) {
                b.listenUrl(value);
            } else {
                throw new IllegalArgumentException(String.format("unknown parameter %s in %s; the client's own "
                        + "parameters are latchkey.pooling and latchkey.listenUrl", name, redact(url)));
            }
        }
        return b.build();
    }

    /** {@code url} without its {@code latchkey.} parameters (which the driver must not see). */
    static String withoutParams(String url) {
        if (params(url, true).isEmpty()) {
            return url;
        }
        String kept = String.join("&", params(url, false));
        return url.substring(0, url.indexOf('?')) + (kept.isEmpty() ? "" : "?" + kept);
    }

    /** The non-empty query parameters of a {@code jdbc:postgresql:} URL that are the client's ({@code ours}) or not. */
    private static List<String> params(String url, boolean ours) {
        int q = url.indexOf('?');
        return q < 0 || !url.startsWith("jdbc:postgresql:") ? List.of() : Arrays.stream(url.substring(q + 1)
                .split("&")).filter(p -> !p.isEmpty() && p.startsWith(PARAM_PREFIX) == ours).toList();
    }

    /** A pool of at most {@code poolSize} connections to {@code jdbcUrl}, connecting within the operation timeout. */
    static HikariDataSource pool(String jdbcUrl, int poolSize, Duration operationTimeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(withLoginTimeout(driverUrl(jdbcUrl), operationTimeout));
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
            if (cause == null && String.valueOf(e.getMessage()).contains("timed out")) {
                cause = silentServer(jdbcUrl, operationTimeout);
            }
            if (cause != null) {
                throw new LockUnavailableException(String.format("cannot connect to %s: %s", redact(jdbcUrl),
                        cause.replace(jdbcUrl, redact(jdbcUrl))), e);
            }
            throw new LockUnavailableException(String.format("could not open a connection pool to %s: %s",
                    redact(jdbcUrl), e.getMessage() == null ? e.getClass().getSimpleName()
                            : e.getMessage().replace(jdbcUrl, redact(jdbcUrl))), e);
        }
    }

    /**
     * Why a connect timed out when a server listens at the URL's first host: it is not a database of the URL's kind
     * (a Redis server behind a {@code jdbc:postgresql:} URL waits for ever for the rest of a command). {@code null}
     * if the URL names no host or nothing listens there.
     */
    private static String silentServer(String jdbcUrl, Duration timeout) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("^jdbc:(postgresql|mariadb|mysql)://([^/:,?]+)"
                + "(?::(\\d{1,5}))?").matcher(jdbcUrl.replaceFirst("//[^/@]*@", "//"));
        if (!m.find()) {
            return null;
        }
        String kind = m.group(1).equals("postgresql") ? "PostgreSQL" : "MariaDB/MySQL";
        int port = m.group(3) != null ? Integer.parseInt(m.group(3)) : kind.equals("PostgreSQL") ? 5432 : 3306;
        try (java.net.Socket socket = new java.net.Socket()) {
            socket.connect(new java.net.InetSocketAddress(m.group(2), port), 500);
        } catch (java.io.IOException | RuntimeException notListening) {
            return null;
        }
        return String.format("%s:%d accepted the connection, but no %s server answered there within %d ms (is it a "
                + "%s server?)", m.group(2), port, kind, timeout.toMillis(), kind);
    }

    /**
     * {@code url} with the driver's bound on opening a connection set to the operation timeout, unless the URL sets
     * it: PgJDBC has none by default (a server that never answers its start-up message, such as Redis, keeps
     * {@code connect} waiting for ever), MariaDB Connector/J waits 30 s.
     */
    static String withLoginTimeout(String url, Duration timeout) {
        String lower = url.toLowerCase(Locale.ROOT);
        String name;
        long value;
        if (lower.startsWith("jdbc:postgresql:")) {
            name = "loginTimeout=";
            value = Math.max(1, (timeout.toMillis() + 999) / 1000);
        } else if (lower.startsWith("jdbc:mariadb:") || lower.startsWith("jdbc:mysql:")) {
            name = "connectTimeout=";
            value = Math.max(1, timeout.toMillis());
        } else {
            return url;
        }
        String lowerName = name.toLowerCase(Locale.ROOT);
        if (lower.contains("?" + lowerName) || lower.contains("&" + lowerName)) {
            return url;
        }
        return url + (url.indexOf('?') >= 0 ? "&" : "?") + name + value;
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
                            + "org.mariadb.jdbc:mariadb-java-client or com.h2database:h2", redact(jdbcUrl)));
        }
    }
}
