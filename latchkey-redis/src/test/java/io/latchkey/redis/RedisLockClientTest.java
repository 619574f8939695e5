package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The Redis backend under the engine, through the public API. */
class RedisLockClientTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private LockClient client;

    @BeforeEach
    void connect() {
        client = LockClient.connect(redis.uri(), fastOptions());
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void lockIsVisibleInRedissonLayoutWithTheThreadOwner() {
        String name = uniqueName("api");
        DistributedLock lock = client.lock(name);
        lock.lock();
        try {
            assertThat(redis.execute("HKEYS", name))
                    .as("the owner's field, the hold's token and attempt id, who holds it, since when")
                    .isEqualTo(List.of(client.clientId() + ":" + Thread.currentThread().getId(), LockKeys.TOKEN_FIELD,
                            "latchkey:attempt", "latchkey:client", "latchkey:since"));
            assertThat(lock.isLocked()).isTrue();
            assertThat(lock.fencingToken()).isNotEmpty();
            assertThat(redis.execute("HGET", name, LockKeys.TOKEN_FIELD))
                    .isEqualTo(Long.toString(lock.fencingToken().getAsLong()));
        } finally {
            lock.unlock();
        }
        assertThat(redis.execute("EXISTS", name)).isEqualTo(0L);
    }

    @Test
    void watchdogKeepsTheLockAliveAcrossSeveralTimeouts() throws Exception {
        String name = uniqueName("watchdog");
        DistributedLock lock = client.lock(name);
        lock.lock();
        try {
            Thread.sleep(1_500); // 2.5 watchdog timeouts of 600 ms
            assertThat((Long) redis.execute("PTTL", name)).isPositive();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void renewalNeverOutlivesUnlock() throws Exception {
        String name = uniqueName("outlive");
        DistributedLock lock = client.lock(name);
        lock.lock();          // watchdog-renewed
        Thread.sleep(250);    // at least one renewal happened
        lock.unlock();
        lock.lock(Duration.ofMillis(400));   // same thread, same owner id, fixed short lease
        long locked = System.nanoTime();
        Awaitility.await().atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(10))
                .until(() -> redis.execute("EXISTS", name).equals(0L));
        long expiredAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - locked);
        assertThat(expiredAfterMs).as("the fixed lease expired on time, not renewed").isBetween(300L, 700L);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
    }

    @Test
    void serverRestartingEmptyMakesTheWatchdogReportTheLeaseLost() throws Exception {
        String name = uniqueName("restart-lost");
        LockLease lease = client.lock(name).acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        redis.stop();
        redis.start();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        // The client is usable again on the restarted server.
        try (LockLease again = client.lock(name).acquire()) {
            assertThat(again.fencingToken()).isPositive();
        }
    }

    @Test
    void thousandAsyncAcquiresOnAHeldLockParkNoThreads() throws Exception {
        String name = uniqueName("async");
        try (LockClient other = LockClient.connect(redis.uri(), fastOptions())) {
            LockLease held = other.lock(name).acquire();
            DistributedLock lock = client.lock(name);
            int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
            List<CompletableFuture<LockLease>> pending = new ArrayList<>();
            for (int i = 0; i < 1_000; i++) {
                pending.add(lock.acquireAsync());
            }
            Thread.sleep(200);
            assertThat(pending).noneMatch(CompletableFuture::isDone);
            int threadsWhileWaiting = ManagementFactory.getThreadMXBean().getThreadCount();
            assertThat(threadsWhileWaiting - threadsBefore).as("threads added by 1,000 waiters")
                    .isLessThanOrEqualTo(4);
            held.release();
            long lastToken = 0;
            for (CompletableFuture<LockLease> f : pending) {
                // The engine grants them one after another (hand-off), each exclusive.
                LockLease lease = f.get(20, TimeUnit.SECONDS);
                assertThat(lease.fencingToken()).isGreaterThan(lastToken);
                lastToken = lease.fencingToken();
                lease.release();
            }
        }
    }

    @Test
    void closeStopsTheClientsThreads() throws Exception {
        String name = uniqueName("threads");
        LockClient other = LockClient.connect(redis.uri(), fastOptions());
        String id = other.clientId().substring(0, 8);
        LockLease held = client.lock(name).acquire();
        // A timed wait starts the timer; a watchdog lease starts the watchdog.
        assertThat(other.lock(name).tryAcquire(Duration.ofMillis(100))).isEmpty();
        other.lock(uniqueName("threads-2")).acquire();
        assertThat(threadsNamed(id)).isNotEmpty().allMatch(Thread::isDaemon);
        other.close();
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> threadsNamed(id).isEmpty());
        held.release();
    }

    private static List<Thread> threadsNamed(String clientIdPrefix) {
        List<Thread> found = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("latchkey-redis-") && t.getName().endsWith(clientIdPrefix) && t.isAlive()) {
                found.add(t);
            }
        }
        return found;
    }

    @Test
    void twoClientsExcludeEachOther() throws Exception {
        String name = uniqueName("exclusion");
        int[] counter = {0};
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        try (LockClient other = LockClient.connect(redis.uri(), fastOptions())) {
            List<Thread> threads = new ArrayList<>();
            for (LockClient c : List.of(client, other)) {
                for (int t = 0; t < 3; t++) {
                    Thread thread = new Thread(() -> {
                        DistributedLock lock = c.lock(name);
                        for (int i = 0; i < 100; i++) {
                            lock.lock();
                            try {
                                maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                counter[0]++;
                                inside.decrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                        }
                    }, "exclusion-" + t);
                    threads.add(thread);
                    thread.start();
                }
            }
            for (Thread thread : threads) {
                thread.join(30_000);
            }
        }
        assertThat(counter[0]).isEqualTo(600);
        assertThat(maxInside.get()).isEqualTo(1);
    }
}
