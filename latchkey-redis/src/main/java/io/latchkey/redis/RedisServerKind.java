package io.latchkey.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which kind of Redis (or Valkey) server a connection reached, told in words when it is not one locks can live on.
 * Locks are written on a master in standalone mode (or found through Sentinel, or routed by slot on a Cluster). A
 * read-only replica, a Sentinel and a Cluster node each accept a plain {@code redis://} connection and then refuse or
 * misplace the first lock ({@code READONLY}, an unknown {@code EVALSHA}, {@code MOVED}); a writable replica would
 * take it and lose it to the master's next sync. So the connect fails instead, naming what answered and the URI that
 * reaches what the user meant.
 *
 * <p>Also warns (a log line) when the server may evict lock keys at its memory limit ({@link #evictionWarning}).
 *
 * <p>Asked with {@code ROLE}, {@code INFO server} and {@code INFO memory}, once per connect. A server that refuses either (an ACL user
 * without them) or does not answer within the time left is taken as it is: the check never fails a connect by
 * itself.
 */
final class RedisServerKind {

    private static final Logger log = LoggerFactory.getLogger(RedisServerKind.class);

    /** {@code redis_mode} on Redis, {@code server_mode} on Valkey 8. */
    private static final Pattern MODE = Pattern.compile("(?m)^(?:redis|server)_mode:\\s*(\\w+)");

    /**
     * A connect that reached a server locks cannot live on, or a Sentinel that does not know the master; its message
     * says what answered and what to use instead.
     */
    static final class Misdirected extends RedisConnectionException {
        private static final long serialVersionUID = 1L;

        Misdirected(String message) {
            super(message);
        }
    }

    private RedisServerKind() {
    }

    /**
     * Fails if the server behind {@code connection}, reached through the plain {@code uri}, is not a master in
     * standalone mode.
     *
     * @param uri what the user gave (host and port named in the message), or {@code null} for an application's
     *        client whose address is not known: then only Sentinels and Cluster nodes are refused
     * @param budget the most this may take
     * @throws Misdirected if it is a replica, a Sentinel or a Cluster node
     */
    static void checkStandalone(StatefulRedisConnection<String, String> connection, RedisURI uri, Duration budget) {
        RedisAsyncCommands<String, String> commands = connection.async();
        CompletableFuture<String> memory = commands.info("memory").toCompletableFuture();
        long deadline = System.nanoTime() + budget.toNanos();
        if (uri == null || uri.getSentinels().isEmpty()) {
            // through Sentinel the connection is to the master it names (a replica there is a failover under way)
            checkRole(commands, uri, deadline);
        }
        String warning = evictionWarning(uri == null ? "the application's Redis server"
                : "the Redis server at " + RedisUris.address(uri), answer(memory, deadline));
        if (warning != null) {
            log.warn(warning);
        }
    }

    private static void checkRole(RedisAsyncCommands<String, String> commands, RedisURI uri, long deadline) {
        String at = uri == null ? "HOST:PORT" : RedisUris.address(uri);
        String it = uri == null ? "the server" : "it";
        CompletableFuture<List<Object>> role = commands.role().toCompletableFuture();
        CompletableFuture<String> info = commands.info("server").toCompletableFuture();
        List<Object> roleReply = answer(role, deadline);
        String kind = roleReply == null || roleReply.isEmpty() ? null : String.valueOf(roleReply.get(0));
        if ("sentinel".equals(kind)) {
            List<String> masters = strings(roleReply.size() > 1 ? roleReply.get(1) : null);
            throw new Misdirected(String.format("%s is a Redis Sentinel, not the server that keeps the locks: use "
                    + "redis-sentinel://%s/%s to reach the master it monitors%s", it, at,
                    masters.size() == 1 ? masters.get(0) : "MASTER-NAME",
                    masters.isEmpty() ? "" : " (it monitors: " + String.join(", ", masters) + ")"));
        }
        if (uri != null && ("slave".equals(kind) || "replica".equals(kind)) && roleReply.size() > 2) {
            String master = roleReply.get(1) + ":" + roleReply.get(2);
            throw new Misdirected(String.format("it is a replica of %s: locks are written on the master, so connect to "
                    + "redis://%s, or through Sentinel (redis-sentinel://…) to follow failovers", master, master));
        }
        String infoReply = answer(info, deadline);
        Matcher mode = MODE.matcher(infoReply == null ? "" : infoReply);
        if (mode.find() && "cluster".equals(mode.group(1))) {
            throw new Misdirected(String.format("%s is a node of a Redis Cluster, where a plain connection reaches "
                    + "only this node's slots: use redis-cluster://%s", it, at));
        }
    }

    /**
     * A warning for a server that may evict lock keys when it runs out of memory: a {@code maxmemory} limit with a
     * policy other than {@code noeviction} ({@code volatile-*} policies evict keys with an expiry, which every lock
     * has; {@code allkeys-*} any key). An evicted lock is free for the next caller while its holder works on: two
     * holders, told to nobody. {@code null} if the server has no limit, does not evict, or did not say.
     *
     * @param server the server in words, as in {@code the Redis server at host:port}
     * @param memory the server's {@code INFO memory}, or {@code null}
     */
    static String evictionWarning(String server, String memory) {
        Matcher limit = Pattern.compile("(?m)^maxmemory:\\s*(\\d+)").matcher(memory == null ? "" : memory);
        Matcher policy = Pattern.compile("(?m)^maxmemory_policy:\\s*(\\S+)").matcher(memory == null ? "" : memory);
        if (!limit.find() || !policy.find() || "0".equals(limit.group(1)) || "noeviction".equals(policy.group(1))) {
            return null;
        }
        return String.format("%s may evict lock keys when it reaches its memory limit "
                + "(maxmemory %s bytes, maxmemory-policy %s): an evicted lock is free for another caller while its "
                + "holder still works, and nobody is told. Run the server that keeps locks with maxmemory-policy "
                + "noeviction", server, limit.group(1), policy.group(1));
    }

    /**
     * Why a {@code redis-sentinel://} connect failed, asked of the Sentinels themselves: one that is not a Sentinel,
     * or a master name none of them monitors. {@code null} if they do not tell (down, slow, or as expected).
     *
     * @param client the Lettuce client of the connect (its resources; one connection per Sentinel, closed here)
     * @param uri the Sentinel URI: its Sentinels and the master name asked for
     * @param budget the most this may take
     */
    static String whySentinelFailed(RedisClient client, RedisURI uri, Duration budget) {
        long deadline = System.nanoTime() + budget.toNanos();
        List<String> monitored = new ArrayList<>();
        for (RedisURI sentinel : uri.getSentinels()) {
            String at = sentinel.getHost() + ":" + sentinel.getPort();
            List<Object> role = null;
            CompletableFuture<StatefulRedisConnection<String, String>> connect =
                    client.connectAsync(RedisConnections.CODEC, sentinel).toCompletableFuture();
            StatefulRedisConnection<String, String> connection = answer(connect, deadline);
            if (connection == null) {
                connect.thenAccept(StatefulRedisConnection::closeAsync); // one that completes after all
            } else {
                try {
                    role = answer(connection.async().role().toCompletableFuture(), deadline);
                } finally {
                    connection.close(); // before the caller shuts the client down, which would close it again
                }
            }
            if (role == null || role.isEmpty()) {
                continue;
            }
            if (!"sentinel".equals(String.valueOf(role.get(0)))) {
                return String.format("%s is not a Redis Sentinel but a Redis server (role %s): use redis://%s for "
                        + "it, or the Sentinels' own port (26379 by default)", at, role.get(0), at);
            }
            monitored.addAll(strings(role.size() > 1 ? role.get(1) : null));
        }
        if (!monitored.isEmpty() && !monitored.contains(uri.getSentinelMasterId())) {
            return String.format("the Sentinels monitor no master named '%s' (they monitor: %s)",
                    uri.getSentinelMasterId(), String.join(", ", monitored.stream().distinct().toList()));
        }
        return null;
    }

    private static List<String> strings(Object reply) {
        List<String> out = new ArrayList<>();
        if (reply instanceof List<?> list) {
            list.forEach(item -> out.add(String.valueOf(item)));
        }
        return out;
    }

    /** The future's value by {@code deadline}, or {@code null} if it failed or is late (then it is cancelled). */
    private static <T> T answer(CompletableFuture<T> future, long deadline) {
        try {
            return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            return null;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            log.debug("asking a Redis server of its kind failed", e);
            future.cancel(true);
            return null;
        }
    }
}
