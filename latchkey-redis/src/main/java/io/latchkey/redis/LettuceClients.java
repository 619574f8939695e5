package io.latchkey.redis;

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
import java.util.concurrent.TimeUnit;

/**
 * The Lettuce clients a {@link RedisLockClient} makes and owns when it is created from a URI (their resources,
 * timeouts and reconnect delays), how one that never connected is given up, and what little is read from an
 * application's Lettuce client by reflection (only to name the server in messages).
 */
final class LettuceClients {

    private LettuceClients() {
    }

    /** A standalone or Sentinel client with its own resources; commands and connects bounded by {@code timeout}. */
    static RedisClient standalone(RedisURI uri, Duration timeout) {
        RedisClient client = RedisClient.create(newResources(), uri);
        client.setOptions(io.lettuce.core.ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .build());
        return client;
    }

    /** A cluster client on {@code seeds} with its own resources; commands and connects bounded by {@code timeout}. */
    static RedisClusterClient cluster(List<RedisURI> seeds, Duration timeout) {
        RedisClusterClient client = RedisClusterClient.create(newResources(), seeds);
        client.setOptions(ClusterClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                // A MOVED reply or a node that keeps failing means the slots moved (resharding, failover):
                // reload the topology at once rather than at a periodic refresh.
                .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                        .enableAllAdaptiveRefreshTriggers()
                        .build())
                .build());
        return client;
    }

    /**
     * Shuts down a client made here that never connected without making the caller wait (a blocking shutdown takes
     * up to 4 s after a connect timed out, long after {@code connect} promised to give up); Netty's own threads
     * finish it.
     */
    static void shutdownAbandoned(AbstractRedisClient client) {
        ClientResources resources = client.getResources();
        client.shutdownAsync(0, 2, TimeUnit.SECONDS).whenComplete((v, e) -> resources.shutdown(0, 2, TimeUnit.SECONDS));
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

    /** The seed node URIs of an application's cluster client, or an empty list if Lettuce's internals changed. */
    @SuppressWarnings("unchecked")
    static List<RedisURI> seedUris(RedisClusterClient client) {
        // Lettuce does not expose the seed nodes either; they only name the cluster in our messages.
        try {
            Field field = RedisClusterClient.class.getDeclaredField("initialUris");
            field.setAccessible(true);
            List<RedisURI> seeds = new ArrayList<>();
            ((Iterable<RedisURI>) field.get(client)).forEach(seeds::add);
            return seeds;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return List.of();
        }
    }

    /** The default URI of an application's client, or {@code null} if it has none or Lettuce's internals changed. */
    static RedisURI defaultUri(RedisClient client) {
        // Lettuce does not expose the client's default URI; it only names the server in our messages.
        try {
            Field field = RedisClient.class.getDeclaredField("redisURI");
            field.setAccessible(true);
            return (RedisURI) field.get(client);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
