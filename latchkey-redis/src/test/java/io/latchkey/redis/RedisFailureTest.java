package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.acquireNow;
import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.request;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.Grant;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Outages, slow servers, flushed script caches and restarts, on a real redis-server. */
class RedisFailureTest {

    // Per test: these tests stop, pause and restart the server.
    @RegisterExtension
    RedisServerExtension redis = RedisServerExtension.standalone();

    private static final Duration OP_TIMEOUT = Duration.ofMillis(500);
    /** Scheduling delay a loaded 2-core CI machine may add; the paused server would answer only after 3 s. */
    private static final long SLACK_MS = 1_000;

    private static ClientOptions options() {
        return ClientOptions.builder().operationTimeout(OP_TIMEOUT).watchdogTimeout(Duration.ofMillis(600)).build();
    }

    @Test
    void connectingToADeadServerFailsWithinTheTimeoutNamingHostAndPort() {
        int port = redis.port();
        redis.stop();
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect("redis://u:hunter2@127.0.0.1:" + port, options()))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + port)
                .hasMessageContaining("connect")
                .satisfies(e -> assertThat(fullText(e)).doesNotContain("hunter2"));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2 * OP_TIMEOUT.toMillis());
    }

    @Test
    void aServerThatAcceptsButNeverAnswersFailsTheConnectWithinTheTimeout() throws Exception {
        // TCP connects, the Redis handshake never answers: the case a dead host behind a proxy looks like.
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 50,
                java.net.InetAddress.getLoopbackAddress())) {
            String uri = "redis://127.0.0.1:" + silent.getLocalPort();
            long start = System.nanoTime();
            assertThatThrownBy(() -> LockClient.connect(uri, options()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + silent.getLocalPort());
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .isLessThan(OP_TIMEOUT.toMillis() + SLACK_MS);

            // An application's client with Lettuce's 60 s default timeout is bounded by ours as well.
            io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(uri);
            try {
                long appStart = System.nanoTime();
                assertThatThrownBy(() -> RedisLockClient.create(lettuce, options()))
                        .isInstanceOf(LockUnavailableException.class);
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - appStart))
                        .isLessThan(OP_TIMEOUT.toMillis() + SLACK_MS);
            } finally {
                lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    @Test
    void serverStoppedMidHoldFailsOperationsWithinTheTimeout() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            RedisLockOps ops = client.redisLockOps();
            Grant held = acquireNow(ops, uniqueName("down"), owner(), 10_000);
            redis.stop();
            for (String op : List.of("release", "renew", "acquire")) {
                long start = System.nanoTime();
                assertThatThrownBy(() -> {
                    switch (op) {
                        case "release": ops.release(held).get(); break;
                        case "renew": ops.renew(List.of(held)).get(); break;
                        default: ops.tryAcquire(request(uniqueName("x"), owner(), 1_000, Duration.ZERO), null).get();
                    }
                }).isInstanceOf(ExecutionException.class)
                        .cause()
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("127.0.0.1:" + redis.port())
                        .hasMessageContaining(op);
                assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                        .as(op).isLessThan(OP_TIMEOUT.toMillis() + SLACK_MS);
            }
        }
    }

    @Test
    void slowServerFailsWithinTheTimeout() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            redis.pauseClients(Duration.ofMillis(3_000));
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.redisLockOps()
                    .tryAcquire(request(uniqueName("slow"), owner(), 1_000, Duration.ZERO), null).get())
                    .cause()
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("did not answer acquire within");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .isLessThan(OP_TIMEOUT.toMillis() + SLACK_MS);
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "Lettuce command timeouts {0}")
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void anApplicationsClientIsBoundedByTheOperationTimeoutToo(boolean lettuceTimeouts) throws Exception {
        io.lettuce.core.RedisClient lettuce = io.lettuce.core.RedisClient.create(redis.uri());
        // Without Lettuce's command timeouts the lock client bounds its commands with its own timer.
        lettuce.setOptions(io.lettuce.core.ClientOptions.builder()
                .timeoutOptions(lettuceTimeouts ? io.lettuce.core.TimeoutOptions.enabled()
                        : io.lettuce.core.TimeoutOptions.builder().timeoutCommands(false).build())
                .build());
        try (RedisLockClient client = RedisLockClient.create(lettuce, options())) {
            Grant g = acquireNow(client.redisLockOps(), uniqueName("app-client"), owner(), 10_000);
            redis.pauseClients(Duration.ofMillis(3_000));
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.redisLockOps().release(g).get())
                    .cause()
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + redis.port())
                    .hasMessageContaining("release");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .isLessThan(OP_TIMEOUT.toMillis() + SLACK_MS);
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void scriptFlushIsRecoveredTransparently() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            RedisLockOps ops = client.redisLockOps();
            String name = uniqueName("noscript");
            Grant g = acquireNow(ops, name, owner(), 10_000);
            redis.execute("SCRIPT", "FLUSH");
            assertThat(ops.release(g).get()).isTrue();
            redis.execute("SCRIPT", "FLUSH");
            Grant again = acquireNow(ops, name, owner(), 10_000);
            assertThat(again.fencingToken()).isGreaterThan(g.fencingToken());
            redis.execute("SCRIPT", "FLUSH");
            assertThat(ops.renew(List.of(again)).get()).isEmpty();
        }
    }

    @Test
    void afterARestartOnAnEmptyServerRenewalReportsTheHoldLostAndTheClientRecovers() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            RedisLockOps ops = client.redisLockOps();
            String name = uniqueName("restart");
            Grant g = acquireNow(ops, name, owner(), 10_000);
            redis.stop();
            redis.start();
            // The client reconnects by itself; the hold is gone with the data (and the scripts).
            Awaitility.await().atMost(Duration.ofSeconds(5)).ignoreExceptions()
                    .until(() -> ops.renew(List.of(g)).get().contains(g));
            Grant next = acquireNow(ops, name, owner(), 10_000);
            assertThat(next).isNotNull();
            assertThat(ops.release(next).get()).isTrue();
        }
    }

    private static String fullText(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t).append('\n');
        }
        return sb.toString();
    }
}
