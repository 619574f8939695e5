package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.spi.LockClientProvider;
import java.util.List;

/**
 * Creates {@link RedisLockClient}s for {@code redis://[user:password@]host[:port][/db]},
 * {@code rediss://…} (TLS, trusting the JVM's default trust store),
 * {@code redis-sentinel://host:port[,host:port…]/mastername} ({@code rediss-sentinel://…}) and
 * {@code redis-cluster://[user:password@]host[:port][,host[:port]…]} (Redis Cluster seeds) URIs, and the same for
 * Valkey: {@code valkey://}, {@code valkeys://}, {@code valkey-sentinel://}, {@code valkeys-sentinel://},
 * {@code valkey-cluster://}; found by
 * {@link LockClient#connect(String, ClientOptions)} through {@link java.util.ServiceLoader}.
 */
public final class RedisLockClientProvider implements LockClientProvider {

    private static final List<String> PREFIXES = List.of("redis://", "rediss://", "redis-sentinel://",
            "rediss-sentinel://", "redis-cluster://", "valkey://", "valkeys://", "valkey-sentinel://",
            "valkeys-sentinel://", "valkey-cluster://");

    /** For {@link java.util.ServiceLoader}. */
    public RedisLockClientProvider() {
    }

    @Override
    public List<String> uriPrefixes() {
        return PREFIXES;
    }

    @Override
    public LockClient create(String uri, ClientOptions options) {
        return RedisLockClient.connect(uri, options);
    }
}
