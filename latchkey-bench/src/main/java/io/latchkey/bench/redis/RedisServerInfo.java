package io.latchkey.bench.redis;

import io.latchkey.bench.SideBySide;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.HashMap;
import java.util.Map;

/**
 * Reads the benchmarked server's counters over a connection of its own: {@code INFO commandstats} (to count the
 * commands each cycle costs), {@code INFO cpu} (its CPU time per cycle), the server version and the number of connected clients.
 */
final class RedisServerInfo implements SideBySide.ServerCounters, AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    RedisServerInfo(String redisUri) {
        this.client = RedisClient.create(redisUri);
        this.connection = client.connect();
    }

    /** Every {@code cmdstat_} line's calls; these include the commands run inside Lua scripts. */
    @Override
    public Map<String, Long> snapshot() {
        Map<String, Long> calls = new HashMap<>();
        String info = connection.sync().info("commandstats");
        // Lines look like: cmdstat_evalsha:calls=12,usec=34,usec_per_call=2.83,rejected_calls=0,failed_calls=0
        for (String line : info.split("\r?\n")) {
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

    /** {@code used_cpu_user + used_cpu_sys} of {@code INFO cpu}: the whole server process, in µs. */
    @Override
    public double cpuMicros() {
        String info = connection.sync().info("cpu");
        return (Double.parseDouble(field(info, "used_cpu_user")) + Double.parseDouble(field(info, "used_cpu_sys")))
                * 1_000_000;
    }

    String version() {
        return field(connection.sync().info("server"), "redis_version");
    }

    int connectedClients() {
        // Minus this connection of ours.
        return Integer.parseInt(field(connection.sync().info("clients"), "connected_clients")) - 1;
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "?";
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
