package io.latchkey.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;
import java.util.stream.Collectors;

/**
 * Parses {@code redis://[user:password@]host[:port][/db]}, {@code rediss://…} (TLS) and Sentinel URIs
 * {@code redis-sentinel://[user:password@]host[:port][,host[:port]…]/mastername[/db]} ({@code rediss-sentinel://}
 * for TLS; Lettuce's own {@code …#mastername} form is accepted too), and keeps passwords out of every message about
 * them. Valkey's schemes ({@code valkey://}, {@code valkeys://}, {@code valkey-sentinel://},
 * {@code valkeys-sentinel://}, {@code valkey-cluster://}) mean the same as their {@code redis} counterparts: Valkey
 * speaks the same protocol and runs the same scripts. Redis Cluster seeds: {@link #parseCluster}. The query
 * parameters {@code replicaAcks} and {@code replicaAckTimeout} are Latchkey's ({@link RedisOptions}); the others go
 * to Lettuce.
 */
final class RedisUris {

    private RedisUris() {
    }

    /**
     * @throws IllegalArgumentException if the URI is malformed; the message shows it with its credentials masked
     */
    static RedisURI parse(String uri, Duration operationTimeout) {
        boolean sentinel = isSentinel(uri);
        RedisURI parsed;
        try {
            String lettuceForm = withoutOwnParameters(asRedisScheme(uri));
            parsed = RedisURI.create(sentinel ? sentinelForLettuce(lettuceForm) : lettuceForm);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(String.format("malformed Redis URI '%s': %s", redact(uri),
                    redactIn(e.getMessage(), uri)));
        }
        if (sentinel) {
            if (parsed.getSentinels().isEmpty()) {
                throw new IllegalArgumentException(String.format("Redis URI '%s' names no sentinel", redact(uri)));
            }
            if (parsed.getSentinelMasterId() == null || parsed.getSentinelMasterId().isEmpty()) {
                throw new IllegalArgumentException(String.format("Redis URI '%s': %s", redact(uri), NO_MASTER));
            }
            for (RedisURI s : parsed.getSentinels()) {
                s.setTimeout(operationTimeout);
            }
        } else if (parsed.getHost() == null || parsed.getHost().isEmpty()) {
            throw new IllegalArgumentException(String.format("Redis URI '%s' has no host", redact(uri)));
        }
        parsed.setTimeout(operationTimeout);
        return parsed;
    }

    /** Latchkey's own query parameters of {@code uri} ({@code replicaAcks}, {@code replicaAckTimeout}). */
    static RedisOptions options(String uri) {
        RedisOptions.Builder builder = RedisOptions.builder();
        for (String parameter : queryParameters(uri)) {
            int eq = parameter.indexOf('=');
            String key = eq < 0 ? parameter : parameter.substring(0, eq);
            String value = eq < 0 ? "" : parameter.substring(eq + 1);
            try {
                if (key.equals(REPLICA_ACKS)) {
                    builder.replicaAcks(Integer.parseInt(value));
                } else if (key.equals(REPLICA_ACK_TIMEOUT)) {
                    builder.replicaAckTimeout(duration(value));
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(String.format(
                        "%s in Redis URI '%s' must be %s but was '%s'", key, redact(uri),
                        key.equals(REPLICA_ACKS) ? "a whole number" : "a duration such as 100ms or 2s", value));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(String.format("Redis URI '%s': %s", redact(uri),
                        e.getMessage()));
            }
        }
        return builder.build();
    }

    static final String CLUSTER = "redis-cluster://";

    /** Whether {@code uri} starts with {@code redis-cluster://} or {@code valkey-cluster://} (in any case). */
    static boolean isCluster(String uri) {
        return uri != null && asRedisScheme(uri).regionMatches(true, 0, CLUSTER, 0, CLUSTER.length());
    }

    /** Whether {@code uri} names Sentinels rather than one server. */
    static boolean isSentinel(String uri) {
        String redis = asRedisScheme(uri);
        return redis.startsWith(SENTINEL) || redis.startsWith(SENTINEL_TLS);
    }

    /**
     * {@code uri} with a Valkey scheme ({@code valkey://}, {@code valkeys://}, {@code valkey[s]-sentinel://},
     * {@code valkey-cluster://}) replaced by its {@code redis} counterpart; any other URI as it is. {@code null}
     * stays {@code null}.
     */
    static String asRedisScheme(String uri) {
        if (uri == null || !uri.regionMatches(true, 0, VALKEY, 0, VALKEY.length())) {
            return uri;
        }
        String rest = uri.substring(VALKEY.length());
        for (String suffix : VALKEY_SUFFIXES) {
            if (rest.regionMatches(true, 0, suffix, 0, suffix.length())) {
                return "redis" + suffix + rest.substring(suffix.length());
            }
        }
        return uri;
    }

    private static final String VALKEY = "valkey";
    private static final List<String> VALKEY_SUFFIXES = List.of("://", "s://", "-sentinel://", "s-sentinel://",
            "-cluster://");

    /**
     * {@code host:port}, what messages name the server by; for Sentinel
     * {@code master 'name' via sentinels host:port,host:port}.
     */
    static String address(RedisURI uri) {
        if (uri.getSentinelMasterId() != null && !uri.getSentinels().isEmpty()) {
            return "master '" + uri.getSentinelMasterId() + "' via sentinels " + uri.getSentinels().stream()
                    .map(s -> s.getHost() + ":" + s.getPort()).collect(Collectors.joining(","));
        }
        return uri.getHost() + ":" + uri.getPort();
    }

    private static final String NO_MASTER =
            "it names no master: use redis-sentinel://host:port[,host:port]/mastername";
    private static final String SENTINEL = "redis-sentinel://";
    private static final String SENTINEL_TLS = "rediss-sentinel://";
    private static final String REPLICA_ACKS = "replicaAcks";
    private static final String REPLICA_ACK_TIMEOUT = "replicaAckTimeout";

    /** {@code 100ms} or {@code 2s}; a number without a unit is refused (it would be read as the wrong unit). */
    private static Duration duration(String text) {
        if (text.endsWith("ms")) {
            return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
        }
        if (text.endsWith("s")) {
            return Duration.ofSeconds(Long.parseLong(text.substring(0, text.length() - 1)));
        }
        throw new NumberFormatException("no unit");
    }

    private static List<String> queryParameters(String uri) {
        int q = uri.indexOf('?');
        int hash = q < 0 ? -1 : uri.indexOf('#', q);
        return q < 0 ? List.of() : Arrays.stream((hash < 0 ? uri.substring(q + 1) : uri.substring(q + 1, hash))
                .split("&")).filter(p -> !p.isEmpty()).toList();
    }

    /** {@code uri} without Latchkey's own query parameters, which Lettuce does not know. */
    static String withoutOwnParameters(String uri) {
        int q = uri.indexOf('?');
        if (q < 0) {
            return uri;
        }
        int hash = uri.indexOf('#', q);
        String fragment = hash < 0 ? "" : uri.substring(hash);
        String kept = queryParameters(uri).stream()
                .filter(p -> !List.of(REPLICA_ACKS, REPLICA_ACK_TIMEOUT).contains(p.split("=", 2)[0]))
                .collect(Collectors.joining("&"));
        return uri.substring(0, q) + (kept.isEmpty() ? "" : "?" + kept) + fragment;
    }

    /**
     * Rewrites {@code redis-sentinel://hosts/mastername[/db]} into Lettuce's {@code redis-sentinel://hosts[/db]#mastername}.
     * A URI already in Lettuce's form (a fragment, or {@code sentinelMasterId=}) is left as it is.
     */
    private static String sentinelForLettuce(String uri) {
        int start = uri.indexOf("://") + 3;
        int hash = uri.indexOf('#', start);
        if (hash >= 0 || uri.contains("sentinelMasterId=")) {
            return uri;
        }
        int q = uri.indexOf('?', start);
        int end = q < 0 ? uri.length() : q;
        int slash = uri.indexOf('/', start);
        if (slash < 0 || slash > end) {
            throw new IllegalArgumentException(NO_MASTER);
        }
        String[] path = uri.substring(slash + 1, end).split("/", -1);
        if (path.length > 2 || path[0].isEmpty()) {
            throw new IllegalArgumentException("the path must be /mastername or /mastername/database");
        }
        String database = path.length == 2 ? "/" + path[1] : "";
        return uri.substring(0, slash) + database + uri.substring(end) + "#" + path[0];
    }

    /** The URI with the user-info part (user and password) replaced by {@code ***}. */
    static String redact(String uri) {
        int scheme = uri.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3;
        int at = uri.lastIndexOf('@');
        if (at >= start) {
            return uri.substring(0, start) + "***" + uri.substring(at);
        }
        return uri;
    }

    private static String redactIn(String message, String uri) {
        if (message == null) {
            return "";
        }
        String out = message.replace(uri, redact(uri));
        int scheme = uri.indexOf("://");
        int at = uri.lastIndexOf('@');
        if (scheme >= 0 && at > scheme + 3) {
            String userInfo = uri.substring(scheme + 3, at);
            if (!userInfo.isEmpty()) {
                out = out.replace(userInfo, "***");
            }
            int colon = userInfo.indexOf(':');
            if (colon >= 0 && colon + 1 < userInfo.length()) {
                out = out.replace(userInfo.substring(colon + 1), "***");
            }
        }
        return out;
    }

    /**
     * Parses {@code redis-cluster://[user:password@]host[:port][,host[:port]…]}: the seed nodes of a Redis Cluster
     * (any reachable one suffices; Lettuce discovers the rest), sharing one set of credentials. The port defaults to
     * 6379. A cluster has only database 0, so a path is refused.
     *
     * @throws IllegalArgumentException if the URI is malformed or names no seed; the message shows it with its
     *         credentials masked
     */
    static List<RedisURI> parseCluster(String uri, Duration operationTimeout) {
        if (!isCluster(uri)) {
            throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' must start with %s",
                    redact(uri), CLUSTER));
        }
        String rest = uri.substring(uri.indexOf("://") + 3);
        int at = rest.lastIndexOf('@');
        String userInfo = at >= 0 ? rest.substring(0, at + 1) : "";
        String hosts = rest.substring(at + 1);
        if (hosts.indexOf('/') >= 0 || hosts.indexOf('?') >= 0) {
            throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' has a path or query; expected "
                    + "%s[user:password@]host[:port][,host[:port]…] (a cluster has only database 0)",
                    redact(uri), CLUSTER));
        }
        if (hosts.trim().isEmpty()) {
            throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' names no seed node; expected "
                    + "%s[user:password@]host[:port][,host[:port]…]", redact(uri), CLUSTER));
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String seed : hosts.split(",", -1)) {
            String hostPort = seed.trim();
            if (hostPort.isEmpty()) {
                throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' has an empty seed "
                        + "between commas", redact(uri)));
            }
            RedisURI parsed;
            try {
                checkPort(hostPort);
                parsed = parse("redis://" + userInfo + hostPort, operationTimeout);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' has a malformed seed '%s'",
                        redact(uri), hostPort), e);
            }
            seeds.add(parsed);
        }
        return seeds;
    }

    /** Lettuce reads a port it cannot parse as part of the host name; a typo must not pass unnoticed. */
    private static void checkPort(String hostPort) {
        int bracket = hostPort.lastIndexOf(']');
        int colon = hostPort.lastIndexOf(':');
        if (colon <= bracket || (bracket < 0 && hostPort.indexOf(':') != colon)) {
            return; // no port (or a bare IPv6 address, which needs brackets to carry one)
        }
        String port = hostPort.substring(colon + 1);
        boolean valid = !port.isEmpty() && port.length() <= 5 && port.chars().allMatch(Character::isDigit)
                && Integer.parseInt(port) >= 1 && Integer.parseInt(port) <= 65535;
        if (!valid) {
            throw new IllegalArgumentException("port must be a number in [1, 65535] but was '" + port + "'");
        }
    }

    /** {@code host:port,host:port}: what messages name the cluster by. */
    static String clusterAddress(Iterable<RedisURI> seeds) {
        StringJoiner out = new StringJoiner(",");
        seeds.forEach(seed -> out.add(address(seed)));
        return out.toString();
    }
}
