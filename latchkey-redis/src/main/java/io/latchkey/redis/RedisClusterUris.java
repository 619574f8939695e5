package io.latchkey.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Parses {@code redis-cluster://[user:password@]host[:port][,host[:port]…]}: the seed nodes of a Redis Cluster
 * (any reachable one suffices; Lettuce discovers the rest with {@code CLUSTER SHARDS}/{@code NODES}), sharing one
 * set of credentials. The port defaults to 6379. A cluster has only database 0, so a path is refused. Passwords
 * are masked in every message.
 */
final class RedisClusterUris {

    static final String SCHEME = "redis-cluster://";

    /** The same as {@link #SCHEME}, for Valkey. */
    static final String VALKEY_SCHEME = "valkey-cluster://";

    /** Whether {@code uri} starts with {@link #SCHEME} or {@link #VALKEY_SCHEME} (in any case). */
    static boolean isCluster(String uri) {
        return uri != null && (uri.regionMatches(true, 0, SCHEME, 0, SCHEME.length())
                || uri.regionMatches(true, 0, VALKEY_SCHEME, 0, VALKEY_SCHEME.length()));
    }

    private RedisClusterUris() {
    }

    /**
     * @throws IllegalArgumentException if the URI is malformed or names no seed; the message shows it with its
     *         credentials masked
     */
    static List<RedisURI> parse(String uri, Duration operationTimeout) {
        if (!isCluster(uri)) {
            throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' must start with %s",
                    RedisUris.redact(uri), SCHEME));
        }
        String rest = uri.substring(uri.indexOf("://") + 3);
        int at = rest.lastIndexOf('@');
        String userInfo = at >= 0 ? rest.substring(0, at + 1) : "";
        String hosts = rest.substring(at + 1);
        if (hosts.indexOf('/') >= 0 || hosts.indexOf('?') >= 0) {
            throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' has a path or query; expected "
                    + "%s[user:password@]host[:port][,host[:port]…] (a cluster has only database 0)",
                    RedisUris.redact(uri), SCHEME));
        }
        if (hosts.trim().isEmpty()) {
            throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' names no seed node; expected "
                    + "%s[user:password@]host[:port][,host[:port]…]", RedisUris.redact(uri), SCHEME));
        }
        List<RedisURI> seeds = new ArrayList<>();
        for (String seed : hosts.split(",", -1)) {
            String hostPort = seed.trim();
            if (hostPort.isEmpty()) {
                throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' has an empty seed "
                        + "between commas", RedisUris.redact(uri)));
            }
            RedisURI parsed;
            try {
                checkPort(hostPort);
                parsed = RedisUris.parse("redis://" + userInfo + hostPort, operationTimeout);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' has a malformed seed '%s'",
                        RedisUris.redact(uri), hostPort), e);
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
    static String address(Iterable<RedisURI> seeds) {
        StringJoiner out = new StringJoiner(",");
        seeds.forEach(seed -> out.add(RedisUris.address(seed)));
        return out.toString();
    }
}
