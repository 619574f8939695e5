package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedSemaphore;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The threads of one client waiting on one semaphore: one of them waits at the server, a release of the same client
 * hands its permits to the others without a round trip, at most {@link SemaphoreWaiters#MAX_LOCAL_HAND_OFFS} times
 * in a row. Releases that reach the server are counted by their PUBLISH (a hand-off sends nothing; a waiter's
 * periodic re-check publishes nothing either).
 */
class RedisSemaphoreLocalWaitersTest {

    private static final Duration EVENTUALLY = Duration.ofSeconds(20);

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient a;
    private RedisLockClient b;
    private final List<Thread> threads = new ArrayList<>();

    @BeforeEach
    void connect() {
        a = RedisLockClient.connect(redis.uri(), fastOptions());
        b = RedisLockClient.connect(redis.uri(), fastOptions());
    }

    @AfterEach
    void close() throws InterruptedException {
        a.close();
        b.close();
        for (Thread t : threads) {
            t.join(10_000);
        }
    }

    @Test
    void releasesHandPermitsToLocalWaitersWithoutARoundTripAtMostSixteenInARow() throws Exception {
        String name = uniqueName("sem-local");
        RedisSemaphore semaphore = (RedisSemaphore) a.semaphore(name);
        assertThat(semaphore.trySetPermits(0)).isTrue();
        int waiters = SemaphoreWaiters.MAX_LOCAL_HAND_OFFS + 2;
        AtomicInteger done = new AtomicInteger();
        for (int i = 0; i < waiters; i++) {
            start("sem-local-waiter-" + i, () -> {
                semaphore.acquire();
                done.incrementAndGet();
            });
        }
        await().atMost(EVENTUALLY).until(() -> semaphore.localWaiters().queued() == waiters);

        long published = publishes();
        for (int i = 0; i < SemaphoreWaiters.MAX_LOCAL_HAND_OFFS; i++) {
            semaphore.release();
        }
        await().atMost(EVENTUALLY).until(() -> done.get() == SemaphoreWaiters.MAX_LOCAL_HAND_OFFS);
        assertThat(publishes() - published).as("releases that reached the server").isZero();
        assertThat(semaphore.localWaiters().queued()).isEqualTo(2);

        // The streak is used up: this release goes to the server, where the one remote waiter takes it.
        semaphore.release();
        await().atMost(EVENTUALLY).until(() -> done.get() == waiters - 1);
        assertThat(publishes() - published).isEqualTo(1);

        // The last thread now waits at the server; a release from another client wakes it.
        b.semaphore(name).release();
        await().atMost(EVENTUALLY).until(() -> done.get() == waiters);
        assertThat(semaphore.localWaiters().queued()).isZero();
        assertThat(b.semaphore(name).availablePermits()).isZero();
    }

    @Test
    void localWaitersThatTimeOutOrAreInterruptedLeaveTheQueueAndTakeNothing() throws Exception {
        String name = uniqueName("sem-local-leave");
        RedisSemaphore semaphore = (RedisSemaphore) a.semaphore(name);
        assertThat(semaphore.trySetPermits(0)).isTrue();
        CompletableFuture<Boolean> head = new CompletableFuture<>();
        start("sem-head", () -> {
            semaphore.acquire();
            head.complete(true);
        });
        await().atMost(EVENTUALLY).until(() -> semaphore.localWaiters().queued() == 1);

        CompletableFuture<Boolean> timed = new CompletableFuture<>();
        start("sem-timed", () -> timed.complete(semaphore.tryAcquire(1, Duration.ofMillis(200))));
        CompletableFuture<Throwable> interrupted = new CompletableFuture<>();
        Thread victim = start("sem-interrupted", () -> {
            try {
                semaphore.acquire();
                interrupted.complete(null);
            } catch (InterruptedException e) {
                interrupted.complete(e);
            }
        });
        assertThat(timed.get(20, TimeUnit.SECONDS)).isFalse();
        await().atMost(EVENTUALLY).until(() -> semaphore.localWaiters().queued() == 2);
        victim.interrupt();
        assertThat(interrupted.get(20, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(semaphore.localWaiters().queued()).isEqualTo(1);

        // Only the head is left, waiting at the server: another client's release wakes it.
        b.semaphore(name).release();
        assertThat(head.get(20, TimeUnit.SECONDS)).isTrue();
        assertThat(semaphore.localWaiters().queued()).isZero();
        assertThat(b.semaphore(name).availablePermits()).isZero();
    }

    @Test
    void aLocalWaiterBehindTheHeadIsServedWhenTheHeadTimesOut() throws Exception {
        String name = uniqueName("sem-local-promote");
        RedisSemaphore semaphore = (RedisSemaphore) a.semaphore(name);
        assertThat(semaphore.trySetPermits(0)).isTrue();
        CompletableFuture<Boolean> head = new CompletableFuture<>();
        start("sem-short-head", () -> head.complete(semaphore.tryAcquire(1, Duration.ofMillis(300))));
        await().atMost(EVENTUALLY).until(() -> semaphore.localWaiters().queued() == 1);
        CompletableFuture<Boolean> behind = new CompletableFuture<>();
        start("sem-behind", () -> behind.complete(semaphore.tryAcquire(1, Duration.ofSeconds(20))));

        assertThat(head.get(20, TimeUnit.SECONDS)).isFalse();
        await().atMost(EVENTUALLY).until(() -> semaphore.localWaiters().queued() == 1);
        b.semaphore(name).release();
        assertThat(behind.get(20, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void anUncontendedAcquireAndReleaseAreOneEvalshaEach() throws Exception {
        RedisSemaphore semaphore = (RedisSemaphore) a.semaphore(uniqueName("sem-rt"));
        assertThat(semaphore.trySetPermits(1)).isTrue();
        semaphore.acquire(); // loads the scripts, so that the counts below do not include the NOSCRIPT fallback
        semaphore.release();

        long before = commandCalls("evalsha");
        semaphore.acquire();
        assertThat(commandCalls("evalsha") - before).as("acquire").isEqualTo(1);
        semaphore.release();
        assertThat(commandCalls("evalsha") - before).as("acquire + release").isEqualTo(2);
        assertThat(semaphore.localWaiters().queued()).isZero();
    }

    private interface Body {
        void run() throws Exception;
    }

    private Thread start(String name, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    private static long publishes() {
        return commandCalls("publish");
    }

    private static long commandCalls(String command) {
        Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)")
                .matcher((String) redis.execute("INFO", "commandstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
