package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
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

/** Redisson's RLock and Latchkey's lock on the same name are one lock. */
class RedissonInteropTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private static RedissonClient redisson;
    private static LockClient latchkey;
    private static ExecutorService redissonThread;

    @BeforeAll
    static void connect() {
        Config config = new Config();
        config.useSingleServer().setAddress(redis.uri()).setConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionMinimumIdleSize(1);
        redisson = Redisson.create(config);
        latchkey = LockClient.connect(redis.uri(), fastOptions());
        // Redisson locks are thread-owned: run them on one dedicated thread.
        redissonThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "redisson-side"));
    }

    /** Far below the 30 s leases the waiters would otherwise sleep out, far above a busy machine's stalls. */
    private static final long WOKEN_BY_MESSAGE_MS = 3_000;

    @AfterAll
    static void close() {
        redissonThread.shutdownNow();
        latchkey.close();
        redisson.shutdown();
    }

    @Test
    void latchkeyWaiterIsWokenByRedissonsUnlockMessage() throws Exception {
        String name = uniqueName("interop-r2l");
        RLock rlock = redisson.getLock(name);
        redissonThread.submit(() -> rlock.lock()).get(5, TimeUnit.SECONDS);

        DistributedLock lock = latchkey.lock(name);
        assertThat(lock.tryLock()).as("excluded by the Redisson holder").isFalse();
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            try {
                assertThat(lock.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(10))).isTrue();
                long at = System.nanoTime();
                lock.unlock();
                return at;
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300); // the waiter subscribed and sleeps (Redisson's lease is 30 s)
        assertThat(acquiredAt).isNotDone();
        long unlockedAt = redissonThread.submit(() -> {
            rlock.unlock();
            return System.nanoTime();
        }).get(5, TimeUnit.SECONDS);
        long wokeAfterMs = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(5, TimeUnit.SECONDS) - unlockedAt);
        // Without the message the waiter would sleep until the 30 s lease ran out; typically it wakes in ~1 ms
        // (the latency itself is measured by latchkey-bench, not asserted here).
        assertThat(wokeAfterMs).as("ms from Redisson's unlock to the Latchkey waiter's grant")
                .isLessThan(WOKEN_BY_MESSAGE_MS);
    }

    @Test
    void redissonWaiterIsWokenByLatchkeysUnlockMessage() throws Exception {
        String name = uniqueName("interop-l2r");
        DistributedLock lock = latchkey.lock(name);
        lock.lock(Duration.ofSeconds(30)); // a long lease: Redisson's waiter would otherwise re-check at its expiry
        RLock rlock = redisson.getLock(name);
        assertThat(redissonThread.submit(() -> rlock.tryLock()).get(5, TimeUnit.SECONDS))
                .as("excluded by the Latchkey holder").isFalse();
        Future<Long> acquiredAt = redissonThread.submit(() -> {
            assertThat(rlock.tryLock(20, 10, TimeUnit.SECONDS)).isTrue();
            long at = System.nanoTime();
            rlock.unlock();
            return at;
        });
        Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> redis.execute("PUBSUB", "NUMSUB", LockKeys.channelFor(name)).toString().endsWith("1]"));
        Thread.sleep(100);
        long unlockedAt = System.nanoTime();
        lock.unlock();
        long wokeAfterMs = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(5, TimeUnit.SECONDS) - unlockedAt);
        assertThat(wokeAfterMs).as("ms from Latchkey's unlock to the Redisson waiter's grant")
                .isLessThan(WOKEN_BY_MESSAGE_MS);
    }

    @Test
    void aRedissonHoldIsVisibleToLatchkeyAndViceVersa() throws Exception {
        String name = uniqueName("interop-visible");
        RLock rlock = redisson.getLock(name);
        DistributedLock lock = latchkey.lock(name);
        redissonThread.submit(() -> rlock.lock()).get(5, TimeUnit.SECONDS);
        assertThat(lock.isLocked()).isTrue();
        redissonThread.submit(() -> rlock.unlock()).get(5, TimeUnit.SECONDS);
        assertThat(lock.isLocked()).isFalse();
        lock.lock();
        try {
            assertThat(rlock.isLocked()).isTrue();
            assertThat(redissonThread.submit(() -> rlock.tryLock()).get(5, TimeUnit.SECONDS)).isFalse();
        } finally {
            lock.unlock();
        }
        assertThat(rlock.isLocked()).isFalse();
    }
}
