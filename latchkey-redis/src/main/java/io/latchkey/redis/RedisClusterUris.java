package io.latchkey.redis;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Parses {@code redis-cluster://[user:password@]host[:port][,host[:port]…]}: the seed nodes of a Redis Cluster
 * (any reachable one suffices; Lettuce discovers the rest with {@code CLUSTER SHARDS}/{@code NODES}), sharing one
 * set of credentials. The port defaults to 6379. A cluster has only database 0, so a path is refused. Passwords
 * are masked in every message.
 */
final class RedisClusterUris {

    static final String SCHEME = "redis-cluster://";

    private RedisClusterUris() {
    }

    /**
     * @throws IllegalArgumentException if the URI is malformed or names no seed; the message shows it with its
     *         credentials masked
     */
    static List<RedisURI> parse(String uri, Duration operationTimeout) {
        if (!uri.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
            throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' must start with %s",
                    RedisUris.redact(uri), SCHEME));
        }
        String rest = uri.substring(SCHEME.length());
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
                parsed = RedisUris.parse("redis://" + userInfo + hostPort, operationTimeout);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(String.format("Redis Cluster URI '%s' has a malformed seed '%s'",
                        RedisUris.redact(uri), hostPort), e);
            }
            seeds.add(parsed);
        }
        return seeds;
    }

    /** {@code host:port,host:port}: what messages name the cluster by. */
    static String address(Iterable<RedisURI> seeds) {
        StringBuilder sb = new StringBuilder();
        for (RedisURI seed : seeds) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            sb.append(RedisUris.address(seed));
        }
        return sb.toString();
    }
}
