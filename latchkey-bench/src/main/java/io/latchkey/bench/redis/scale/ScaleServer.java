package io.latchkey.bench.redis.scale;

import io.latchkey.testing.RedisServer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

/**
 * The benchmarked redis-server: one started on a free port (no persistence), which can then be restarted empty, or
 * the one {@code --redis} names (never restarted). Reads its counters over a connection of its own.
 */
final class ScaleServer implements AutoCloseable {

    private final RedisServer own;
    private final String uri;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    ScaleServer(String externalUri) {
        this.own = externalUri == null ? RedisServer.standalone().start() : null;
        this.uri = externalUri == null ? own.uri() : externalUri;
        this.client = RedisClient.create(uri);
        this.connection = client.connect();
        this.connection.setTimeout(Duration.ofSeconds(60));
    }

    String uri() {
        return uri;
    }

    /** Whether the benchmark started the server (and may restart it). */
    boolean restartable() {
        return own != null;
    }

    /** Stops the server and starts it again on the same port, empty (no persistence). */
    void restartEmpty() {
        own.stop();
        own.start();
    }

    private RedisCommands<String, String> sync() {
        return connection.sync();
    }

    /** Keys found by {@link #countKeys}: all of them, and those without an expiry (which stay forever). */
    record Keys(long all, long permanent) {
    }

    /** The keys whose name contains {@code text} (SCAN MATCH over the whole key space, then PTTL of each). */
    Keys countKeys(String text) {
        long all = 0;
        long permanent = 0;
        ScanArgs args = ScanArgs.Builder.matches("*" + text + "*").limit(10_000);
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> page = sync().scan(cursor, args);
            all += page.getKeys().size();
            List<RedisFuture<Long>> ttls = new ArrayList<>(page.getKeys().size());
            for (String key : page.getKeys()) {
                ttls.add(connection.async().pttl(key));
            }
            for (RedisFuture<Long> ttl : ttls) {
                try {
                    if (ttl.get() == -1) {
                        permanent++;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while counting keys", e);
                } catch (ExecutionException e) {
                    throw new IllegalStateException("PTTL failed", e.getCause());
                }
            }
            cursor = page;
        } while (!cursor.isFinished());
        return new Keys(all, permanent);
    }

    long dbsize() {
        return sync().dbsize();
    }

    /** {@code used_memory} of {@code INFO memory}, in bytes. */
    long usedMemory() {
        return Long.parseLong(field(sync().info("memory"), "used_memory"));
    }

    /** {@code used_cpu_sys + used_cpu_user} of {@code INFO cpu}, in seconds. */
    double cpuSeconds() {
        String info = sync().info("cpu");
        return Double.parseDouble(field(info, "used_cpu_sys")) + Double.parseDouble(field(info, "used_cpu_user"));
    }

    /** Calls per command ({@code INFO commandstats}; includes commands run inside scripts). */
    Map<String, Long> commandCalls() {
        Map<String, Long> calls = new HashMap<>();
        for (String line : sync().info("commandstats").split("\r?\n")) {
            if (!line.startsWith("cmdstat_")) {
                continue;
            }
            int colon = line.indexOf(':');
            int start = line.indexOf("calls=", colon) + "calls=".length();
            int end = line.indexOf(',', start);
            calls.put(line.substring("cmdstat_".length(), colon),
                    Long.parseLong(line.substring(start, end < 0 ? line.length() : end)));
        }
        return calls;
    }

    String version() {
        return field(sync().info("server"), "redis_version");
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        throw new IllegalStateException("INFO has no field " + name);
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
        if (own != null) {
            own.close();
        }
    }
}
