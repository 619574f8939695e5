package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.testing.RedisClusterExtension;
import io.latchkey.testing.RedisClusterSetup;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ShardedSubscriptionMode;

/**
 * On a Redis 7 cluster, Redisson's RLock (its default {@code shardedSubscriptionMode} AUTO: SPUBLISH/SSUBSCRIBE) and
 * Latchkey's lock on the same name are one lock, and each side's unlock message wakes the other's waiter. Both
 * holders here keep watchdog leases of 30 s, so a waiter woken within 10 s was woken by the message.
 */
class RedissonClusterInteropTest {

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private static RedissonClient redisson;
    private static LockClient latchkey;
    private static ExecutorService redissonThread;

    @BeforeAll
    static void connect() {
        RedisClusterSetup setup = cluster.setup();
        Config config = new Config();
        var servers = config.useClusterServers().setShardedSubscriptionMode(ShardedSubscriptionMode.AUTO)
                .setMasterConnectionMinimumIdleSize(1).setSubscriptionConnectionMinimumIdleSize(1)
                .setSlaveConnectionMinimumIdleSize(1).setTimeout(10_000);
        for (int port : setup.ports()) {
            servers.addNodeAddress("redis://127.0.0.1:" + port);
        }
        redisson = Redisson.create(config);
        latchkey = LockClient.connect(setup.uri(), ClientOptions.builder()
                .operationTimeout(Duration.ofSeconds(10)).build());
        // Redisson locks are thread-owned: run them on one dedicated thread.
        redissonThread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "redisson-side");
            t.setDaemon(true);
            return t;
        });
    }

    @AfterAll
    static void close() {
        if (redissonThread != null) {
            redissonThread.shutdownNow();
        }
        if (latchkey != null) {
            latchkey.close();
        }
        if (redisson != null) {
            redisson.shutdown();
        }
    }

    private static String name(String prefix) {
        return prefix + ":" + UUID.randomUUID();
    }

    @Test
    void latchkeyWaiterWakesAtRedissonsUnlock() throws Exception {
        String name = name("interop-r2l");
        RLock rlock = redisson.getLock(name);
        redissonThread.submit(() -> rlock.lock()).get(10, TimeUnit.SECONDS);

        DistributedLock lock = latchkey.lock(name);
        assertThat(lock.tryLock()).as("excluded by the Redisson holder").isFalse();
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(lock.tryLock(Duration.ofSeconds(25), Duration.ofSeconds(10))).isTrue();
                long at = System.nanoTime();
                lock.unlock();
                return at;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        int master = cluster.setup().masterOfSlot(LockKeys.slot(name));
        awaitShardSubscriber(master, LockKeys.channelFor(name));
        long unlockedAt = redissonThread.submit(() -> {
            rlock.unlock();
            return System.nanoTime();
        }).get(10, TimeUnit.SECONDS);
        long wokeAfterMs = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(25, TimeUnit.SECONDS) - unlockedAt);
        assertThat(wokeAfterMs).as("woken by Redisson's SPUBLISH, not the 30 s lease").isLessThan(10_000L);
    }

    @Test
    void redissonWaiterWakesAtLatchkeysUnlock() throws Exception {
        String name = name("interop-l2r");
        DistributedLock lock = latchkey.lock(name);
        lock.lock();
        RLock rlock = redisson.getLock(name);
        assertThat(redissonThread.submit(() -> rlock.tryLock()).get(10, TimeUnit.SECONDS))
                .as("excluded by the Latchkey holder").isFalse();
        Future<Long> acquiredAt = redissonThread.submit(() -> {
            assertThat(rlock.tryLock(25, 10, TimeUnit.SECONDS)).isTrue();
            long at = System.nanoTime();
            rlock.unlock();
            return at;
        });
        int master = cluster.setup().masterOfSlot(LockKeys.slot(name));
        awaitShardSubscriber(master, LockKeys.channelFor(name));
        long unlockedAt = System.nanoTime();
        lock.unlock();
        long wokeAfterMs = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(25, TimeUnit.SECONDS) - unlockedAt);
        assertThat(wokeAfterMs).as("woken by Latchkey's SPUBLISH, not the 30 s lease").isLessThan(10_000L);
    }

    @Test
    void aHoldOnEitherSideExcludesTheOther() throws Exception {
        String name = name("interop-visible");
        RLock rlock = redisson.getLock(name);
        DistributedLock lock = latchkey.lock(name);
        redissonThread.submit(() -> rlock.lock()).get(10, TimeUnit.SECONDS);
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.tryLock()).isFalse();
        redissonThread.submit(() -> rlock.unlock()).get(10, TimeUnit.SECONDS);
        assertThat(lock.isLocked()).isFalse();
        lock.lock();
        try {
            assertThat(rlock.isLocked()).isTrue();
            assertThat(redissonThread.submit(() -> rlock.tryLock()).get(10, TimeUnit.SECONDS)).isFalse();
        } finally {
            lock.unlock();
        }
        assertThat(rlock.isLocked()).isFalse();
    }

    @SuppressWarnings("unchecked")
    private static void awaitShardSubscriber(int master, String channel) {
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            List<Object> numsub = (List<Object>) cluster.setup().execute(master, "PUBSUB", "SHARDNUMSUB", channel);
            return numsub.size() == 2 && ((Long) numsub.get(1)) >= 1;
        });
    }
}
