package io.latchkey.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The two connections a {@link RedisLockClient} opens on a Lettuce client, standalone or Redis Cluster: one for
 * commands (scripts, inspection) and one for pub/sub (every wake-up channel of the client). On a cluster both are
 * Lettuce's cluster connections, which route each command by its key's slot to the slot's master, follow
 * MOVED/ASK redirections and keep one node connection per master underneath.
 */
final class RedisConnections {

    private static final Logger log = LoggerFactory.getLogger(RedisConnections.class);

    /**
     * The connections' codec: Lettuce's UTF-8 text codec, telling the exact encoded size of each key and argument
     * (Netty's count, matching what Netty's encoder writes). With an estimate only, Lettuce encodes every argument into
     * a pooled temporary buffer and copies it (every 128th with the stack trace of Netty's leak detection); with the
     * exact size it writes straight into the outgoing buffer, and a group of script calls encodes in a third the time.
     */
    static final StringCodec CODEC = new StringCodec(StandardCharsets.UTF_8) {
        @Override
        public int estimateSize(Object text) {
            return text instanceof CharSequence chars ? ByteBufUtil.utf8Bytes(chars) : 0;
        }

        @Override
        public boolean isEstimateExact() {
            return true;
        }
    };

    final AbstractRedisClient client;
    final StatefulConnection<String, String> connection;
    final RedisClusterAsyncCommands<String, String> commands;
    final StatefulRedisPubSubConnection<String, String> pubSub;
    final boolean cluster;
    /** Whether wake-ups use sharded pub/sub: a cluster whose servers have SPUBLISH (Redis 7 or later). */
    final boolean sharded;

    private RedisConnections(AbstractRedisClient client, StatefulConnection<String, String> connection,
                             RedisClusterAsyncCommands<String, String> commands,
                             StatefulRedisPubSubConnection<String, String> pubSub, boolean cluster, boolean sharded) {
        this.client = client;
        this.connection = connection;
        this.commands = commands;
        this.pubSub = pubSub;
        this.cluster = cluster;
        this.sharded = sharded;
    }

    /**
     * Connects to a standalone server: to {@code uri}, or to the client's default URI if it is {@code null}.
     * Closes what it opened if it fails.
     */
    static RedisConnections standalone(RedisClient client, RedisURI uri, Duration timeout) {
        StatefulRedisConnection<String, String> conn = null;
        StatefulRedisPubSubConnection<String, String> pubSub = null;
        try {
            if (uri == null) {
                conn = client.connect(CODEC);
                RedisServerKind.checkStandalone(conn, null, timeout);
                pubSub = client.connectPubSub(CODEC);
            } else {
                // Bounded here too: an application's client may have a longer connect timeout than ours.
                long start = System.nanoTime();
                conn = uri.isSsl() && uri.getSentinels().isEmpty() ? connectTls(client, uri, timeout)
                        : !uri.getSentinels().isEmpty() ? connectViaSentinels(client, uri, timeout)
                        : connectPlain(client, uri, timeout);
                RedisServerKind.checkStandalone(conn, uri, timeout.minusNanos(System.nanoTime() - start));
                pubSub = await(client.connectPubSubAsync(CODEC, uri).toCompletableFuture(), timeout);
            }
        } catch (RuntimeException e) {
            closeQuietly(pubSub, conn);
            throw e;
        }
        return new RedisConnections(client, conn, conn.async(), pubSub, false, false);
    }

    /**
     * A TLS connect whose handshake never ends is, most often, TLS against a plain port: a plain Redis server reads
     * the client's hello as an inline command and waits for its end, so nothing comes back and Lettuce reports only
     * a timeout. The last part of the timeout (a quarter, at most 500 ms) is kept to ask the port in plain text
     * ({@link #respAnswer}).
     */
    private static StatefulRedisConnection<String, String> connectTls(RedisClient client, RedisURI uri,
                                                                      Duration timeout) {
        Duration probe = Duration.ofMillis(Math.min(500, timeout.toMillis() / 4));
        try {
            return await(client.connectAsync(CODEC, uri).toCompletableFuture(), timeout.minus(probe));
        } catch (RedisConnectionException e) {
            if (!(e.getCause() instanceof TimeoutException)) {
                throw e;
            }
            String answer = respAnswer(uri.getHost(), uri.getPort(), probe);
            if (answer == null) {
                throw new RedisConnectionException("no connection within " + timeout, e.getCause());
            }
            throw new RedisConnectionException(String.format("TLS handshake failed: the server at %s:%d does not "
                    + "speak TLS: it answered PING in plain text (%s); use redis:// for this port, or the server's "
                    + "TLS port", uri.getHost(), uri.getPort(), answer));
        }
    }

    /**
     * A plain connect that the server closes or resets in answer to HELLO: a Redis TLS port does that, which
     * {@link #speaksTls} tells (it needs {@code rediss://}); so do servers of other kinds. Lettuce also reports a
     * refused HELLO (a wrong password) as "closed prematurely" when the close overtakes the error reply: a port that
     * answers {@code PING} in RESP is a Redis server, and the connect is tried once more to get its answer; if that
     * one is cut short too and the port answers {@code PING} with {@code NOAUTH}, the failure names that.
     */
    private static StatefulRedisConnection<String, String> connectPlain(RedisClient client, RedisURI uri,
                                                                        Duration timeout) {
        long start = System.nanoTime();
        try {
            return await(client.connectAsync(CODEC, uri).toCompletableFuture(), timeout);
        } catch (RedisConnectionException e) {
            if (!closedByServer(e)) {
                throw e;
            }
            Duration left = timeout.minusNanos(System.nanoTime() - start);
            if (left.isNegative() || left.isZero()) {
                throw e;
            }
            String answer = respAnswer(uri.getHost(), uri.getPort(), left);
            if (answer != null) {
                try {
                    return await(client.connectAsync(CODEC, uri).toCompletableFuture(),
                            timeout.minusNanos(System.nanoTime() - start));
                } catch (RedisConnectionException again) {
                    // The close overtook the refusal twice: what the port answers PING names the likely cause.
                    if (!answer.startsWith("-NOAUTH") || !closedByServer(again)) {
                        throw again;
                    }
                    throw new RedisConnectionException("the server closed the connection in answer to the URI's "
                            + "credentials; it answers PING with " + answer.substring(1), again);
                }
            }
            left = timeout.minusNanos(System.nanoTime() - start);
            if (!left.isNegative() && !left.isZero() && speaksTls(uri.getHost(), uri.getPort(), left)) {
                throw new RedisConnectionException(String.format("the server at %s:%d speaks TLS: use rediss:// "
                        + "(it closed the connection in answer to plain text)", uri.getHost(), uri.getPort()), e);
            }
            throw e;
        }
    }

    /**
     * A connect through Sentinel that fails says why when the Sentinels tell: Lettuce reports a master name they do
     * not know only as "Cannot provide redisAddress", and a plain Redis server given as a Sentinel as a timeout. The
     * last part of the timeout (a quarter, at most 500 ms) is kept to ask them ({@link RedisServerKind}).
     */
    private static StatefulRedisConnection<String, String> connectViaSentinels(RedisClient client, RedisURI uri,
                                                                               Duration timeout) {
        Duration probe = Duration.ofMillis(Math.min(500, timeout.toMillis() / 4));
        long start = System.nanoTime();
        try {
            return await(client.connectAsync(CODEC, uri).toCompletableFuture(), timeout.minus(probe));
        } catch (RedisConnectionException e) {
            String why = RedisServerKind.whySentinelFailed(client, uri, timeout.minusNanos(System.nanoTime() - start));
            if (why == null) {
                throw e;
            }
            throw new RedisServerKind.Misdirected(why);
        }
    }

    /** A connect the server ended before its handshake was answered (Lettuce names it three ways). */
    private static boolean closedByServer(Throwable e) {
        return RedisErrors.anyCause(e, t -> t.getMessage() != null && (t.getMessage().contains("closed prematurely")
                || t.getMessage().contains("reset by peer")
                || t.getMessage().contains("HandshakeHandler not registered")));
    }

    /**
     * Connects to a Redis Cluster through the client's seeds (Lettuce loads the topology first) and asks one node
     * whether it has sharded pub/sub. Closes what it opened if it fails.
     *
     * @param allowSharded {@code false} to use classic pub/sub even on Redis 7 (what an older cluster gets; tests)
     */
    static RedisConnections cluster(RedisClusterClient client, Duration timeout, boolean allowSharded) {
        StatefulRedisClusterConnection<String, String> conn = null;
        StatefulRedisPubSubConnection<String, String> pubSub = null;
        try {
            // Lettuce's asynchronous connect needs the topology loaded first; bounded, unlike its getPartitions().
            try {
                await(client.refreshPartitionsAsync().toCompletableFuture(), timeout);
            } catch (RuntimeException e) {
                if (RedisErrors.anyCause(e, t -> String.valueOf(t.getMessage()).contains("cluster support disabled"))) {
                    throw new RedisServerKind.Misdirected("the URI's servers run without cluster mode (\"This "
                            + "instance has cluster support disabled\"): use redis://host:port for a standalone server");
                }
                throw e;
            }
            conn = await(client.connectAsync(CODEC), timeout);
            pubSub = await(client.connectPubSubAsync(CODEC), timeout);
            boolean sharded = allowSharded && hasShardedPubSub(conn, timeout);
            return new RedisConnections(client, conn, conn.async(), pubSub, true, sharded);
        } catch (RuntimeException e) {
            closeQuietly(pubSub, conn);
            throw e;
        }
    }

    /**
     * Redis 7 added sharded pub/sub. One node answers for the cluster: a cluster is upgraded node by node, and
     * during a mixed-version upgrade a node without SPUBLISH fails the scripts that publish on it (the release
     * still happens: the publish is a pcall) until it is upgraded.
     */
    private static boolean hasShardedPubSub(StatefulRedisClusterConnection<String, String> conn, Duration timeout) {
        String info = await(conn.async().info("server").toCompletableFuture(), timeout);
        Matcher version = Pattern.compile("(?m)^redis_version:\\s*(\\d{1,9})").matcher(info);
        return version.find() && Integer.parseInt(version.group(1)) >= 7;
    }

    /** Bounds both connections' commands by {@code timeout} (Lettuce's own command timeout). */
    void setTimeout(Duration timeout) {
        connection.setTimeout(timeout);
        pubSub.setTimeout(timeout);
    }

    void close() {
        closeQuietly(pubSub, connection);
    }

    private static void closeQuietly(AutoCloseable... connections) {
        for (AutoCloseable c : connections) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    log.debug("closing a Redis connection failed", e);
                }
            }
        }
    }

    private static <T> T await(CompletableFuture<T> future, Duration timeout) {
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            future.cancel(true);
            throw new RedisConnectionException("interrupted while connecting", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException ? (RuntimeException) e.getCause()
                    : new RedisConnectionException("could not connect", e.getCause());
        } catch (TimeoutException e) {
            // A connection that completes after all is closed rather than leaked.
            future.whenComplete((c, err) -> {
                if (c instanceof StatefulConnection) {
                    ((StatefulConnection<?, ?>) c).closeAsync();
                }
            });
            throw new RedisConnectionException("no connection within " + timeout, e);
        }
    }

    /**
     * Whether {@code host:port} completes a TLS handshake within {@code budget}: one connection of its own, any
     * certificate accepted (only whether the port speaks TLS matters), nothing sent after the handshake.
     */
    private static boolean speaksTls(String host, int port, Duration budget) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, budget.toMillis()));
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), millis);
            plain.setSoTimeout(millis);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, InsecureTrustManagerFactory.INSTANCE.getTrustManagers(), null);
            try (SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(plain, host, port, false)) {
                tls.startHandshake();
                return true;
            }
        } catch (IOException | GeneralSecurityException | RuntimeException e) {
            return false;
        }
    }

    /**
     * The first line {@code host:port} answers to {@code PING} on one plain connection of its own within
     * {@code budget} if it is RESP ({@code +PONG}, {@code -NOAUTH …}: a Redis server), or {@code null}. Nothing is
     * sent but {@code PING}, no credentials.
     */
    private static String respAnswer(String host, int port, Duration budget) {
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, budget.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            StringBuilder line = new StringBuilder();
            for (int b = in.read(); b >= 0 && b != '\r' && b != '\n' && line.length() < 80; b = in.read()) {
                line.append(b >= 0x20 && b < 0x7f ? (char) b : '?');
            }
            return line.length() == 0 || "+-:$*".indexOf(line.charAt(0)) < 0 ? null : line.toString();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
