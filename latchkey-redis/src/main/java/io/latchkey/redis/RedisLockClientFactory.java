package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.core.TimeSource;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.List;
import java.util.Objects;

/**
 * How a {@link RedisLockClient} comes to be: from a {@code redis://}, {@code rediss://}, {@code redis-sentinel://}
 * or {@code redis-cluster://} URI, or its {@code valkey} counterpart (owning the Lettuce client it makes), or around
 * an application's Lettuce client (which it never shuts down). Argument checks happen here, before any connection
 * is opened.
 */
final class RedisLockClientFactory {

    private RedisLockClientFactory() {
    }

    /** Around an application's standalone or Sentinel client (its default URI). */
    static RedisLockClient create(RedisClient client, ClientOptions options, RedisOptions redisOptions) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(redisOptions, "redisOptions");
        checkCompatible(options, redisOptions);
        RedisURI uri = LettuceClients.defaultUri(client);
        String address = uri != null ? RedisUris.address(uri) : "(the Lettuce client's default URI)";
        return new RedisLockClient(client, false, timeout -> RedisConnections.standalone(client, uri, timeout),
                address, options, redisOptions, TimeSource.SYSTEM);
    }

    /** Around an application's cluster client (its seeds). */
    static RedisLockClient create(RedisClusterClient client, ClientOptions options) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        List<RedisURI> seeds = LettuceClients.seedUris(client);
        String address = seeds.isEmpty() ? "(the Lettuce cluster client's seeds)"
                : RedisClusterUris.address(seeds);
        return new RedisLockClient(client, false, timeout -> RedisConnections.cluster(client, timeout, true),
                "cluster " + address, options, RedisOptions.defaults(), TimeSource.SYSTEM);
    }

    /** From a URI of any Redis scheme: a client that owns its Lettuce client and resources. */
    static RedisLockClient connect(String uriText, ClientOptions options) {
        Objects.requireNonNull(options, "options");
        if (RedisClusterUris.isCluster(uriText)) {
            return connectCluster(uriText, options, true);
        }
        RedisURI uri = RedisUris.parse(uriText, options.operationTimeout());
        RedisOptions redisOptions = RedisUris.options(uriText);
        checkCompatible(options, redisOptions);
        RedisClient client = LettuceClients.standalone(uri, options.operationTimeout());
        try {
            return new RedisLockClient(client, true, t -> RedisConnections.standalone(client, uri, t),
                    RedisUris.address(uri), options, redisOptions, TimeSource.SYSTEM);
        } catch (RuntimeException e) {
            LettuceClients.shutdownAbandoned(client);
            throw e;
        }
    }

    /**
     * {@code redis-cluster://seed[,seed…]}: a client that owns its Lettuce cluster client and resources.
     *
     * @param allowSharded {@code false} to wake waiters by classic pub/sub even on Redis 7, as on an older cluster
     */
    static RedisLockClient connectCluster(String uriText, ClientOptions options, boolean allowSharded) {
        List<RedisURI> seeds = RedisClusterUris.parse(uriText, options.operationTimeout());
        RedisClusterClient client = LettuceClients.cluster(seeds, options.operationTimeout());
        try {
            return new RedisLockClient(client, true, t -> RedisConnections.cluster(client, t, allowSharded),
                    "cluster " + RedisClusterUris.address(seeds), options, RedisOptions.defaults(),
                    TimeSource.SYSTEM);
        } catch (RuntimeException e) {
            LettuceClients.shutdownAbandoned(client);
            throw e;
        }
    }

    /** The WAIT command is itself bounded by the operation timeout, so its own timeout must end first. */
    private static void checkCompatible(ClientOptions options, RedisOptions redisOptions) {
        if (redisOptions.replicaAcks() > 0
                && redisOptions.replicaAckTimeout().compareTo(options.operationTimeout()) >= 0) {
            throw new IllegalArgumentException(String.format(
                    "replicaAckTimeout must be shorter than operationTimeout (%s) but was %s",
                    options.operationTimeout(), redisOptions.replicaAckTimeout()));
        }
    }
}
