package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.core.TimeSource;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * How a {@link RedisLockClient} comes to be: from a {@code redis://}, {@code rediss://}, {@code redis-sentinel://}
 * or {@code redis-cluster://} URI, or its {@code valkey} counterpart (owning the Lettuce client it makes, with its
 * own resources, timeouts and reconnect delays), or around an application's Lettuce client (which it never shuts
 * down; read by reflection only to name the server in messages). Argument checks happen here, before any connection
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
        RedisURI uri = (RedisURI) field(RedisClient.class, "redisURI", client);
        String address = uri != null ? RedisUris.address(uri) : "(the Lettuce client's default URI)";
        return new RedisLockClient(client, false, timeout -> RedisConnections.standalone(client, uri, timeout),
                address, options, redisOptions, TimeSource.SYSTEM);
    }

    /** Around an application's cluster client (its seeds). */
    @SuppressWarnings("unchecked")
    static RedisLockClient create(RedisClusterClient client, ClientOptions options) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        List<RedisURI> seeds = new ArrayList<>();
        Object initial = field(RedisClusterClient.class, "initialUris", client);
        if (initial instanceof Iterable) {
            ((Iterable<RedisURI>) initial).forEach(seeds::add);
        }
        String address = seeds.isEmpty() ? "(the Lettuce cluster client's seeds)" : RedisUris.clusterAddress(seeds);
        return new RedisLockClient(client, false, timeout -> RedisConnections.cluster(client, timeout, true),
                "cluster " + address, options, RedisOptions.defaults(), TimeSource.SYSTEM);
    }

    /** From a URI of any Redis scheme: a client that owns its Lettuce client and resources. */
    static RedisLockClient connect(String uriText, ClientOptions options) {
        Objects.requireNonNull(options, "options");
        if (RedisUris.isCluster(uriText)) {
            return connectCluster(uriText, options, true);
        }
        RedisURI uri = RedisUris.parse(uriText, options.operationTimeout());
        RedisOptions redisOptions = RedisUris.options(uriText);
        checkCompatible(options, redisOptions);
        RedisClient client = RedisClient.create(newResources(), uri);
        client.setOptions(io.lettuce.core.ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(options.operationTimeout()))
                .socketOptions(SocketOptions.builder().connectTimeout(options.operationTimeout()).build())
                .build());
        return owning(client, t -> RedisConnections.standalone(client, uri, t), RedisUris.address(uri), options,
                redisOptions);
    }

    /**
     * {@code redis-cluster://seed[,seed…]}: a client that owns its Lettuce cluster client and resources.
     *
     * @param allowSharded {@code false} to wake waiters by classic pub/sub even on Redis 7, as on an older cluster
     */
    static RedisLockClient connectCluster(String uriText, ClientOptions options, boolean allowSharded) {
        List<RedisURI> seeds = RedisUris.parseCluster(uriText, options.operationTimeout());
        RedisClusterClient client = RedisClusterClient.create(newResources(), seeds);
        client.setOptions(ClusterClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(options.operationTimeout()))
                .socketOptions(SocketOptions.builder().connectTimeout(options.operationTimeout()).build())
                // A MOVED reply or a node that keeps failing means the slots moved (resharding, failover):
                // reload the topology at once rather than at a periodic refresh.
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .build())
                .build());
        return owning(client, t -> RedisConnections.cluster(client, t, allowSharded),
                "cluster " + RedisUris.clusterAddress(seeds), options, RedisOptions.defaults());
    }

    /**
     * A lock client on a Lettuce client made here. If it cannot connect, the Lettuce client is shut down without
     * making the caller wait (a blocking shutdown takes up to 4 s after a connect timed out, long after
     * {@code connect} promised to give up); Netty's own threads finish it.
     */
    private static RedisLockClient owning(AbstractRedisClient client, Function<Duration, RedisConnections> connect,
                                          String address, ClientOptions options, RedisOptions redisOptions) {
        try {
            return new RedisLockClient(client, true, connect, address, options, redisOptions, TimeSource.SYSTEM);
        } catch (RuntimeException e) {
            ClientResources resources = client.getResources();
            client.shutdownAsync(0, 2, TimeUnit.SECONDS)
                    .whenComplete((v, error) -> resources.shutdown(0, 2, TimeUnit.SECONDS));
            throw e;
        }
    }

    /** Shuts down a client made here, and its resources, when its lock client closes. */
    static void shutdown(AbstractRedisClient client) {
        ClientResources resources = client.getResources();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        resources.shutdown(0, 2, TimeUnit.SECONDS);
    }

    private static ClientResources newResources() {
        return ClientResources.builder()
                // Reconnect quickly after an outage: waiters and the watchdog are waiting for it.
                .reconnectDelay(Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2,
                        TimeUnit.MILLISECONDS))
                .build();
    }

    /** A private field of Lettuce's (it exposes neither), or {@code null} if its internals changed. */
    private static Object field(Class<?> type, String name, Object of) {
        try {
            Field field = type.getDeclaredField(name);
            field.setAccessible(true);
            return field.get(of);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
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
