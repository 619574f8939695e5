package io.latchkey.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** ShedLock's own executor and extender on {@link LatchkeyLockProvider}, two "nodes" on one embedded ZooKeeper. */
class LatchkeyLockProviderTest {

    private static EmbeddedZooKeeper zooKeeper;
    private static LockClient clientA;
    private static LockClient clientB;
    private static LatchkeyLockProvider nodeA;
    private static LatchkeyLockProvider nodeB;

    @BeforeAll
    static void start() {
        zooKeeper = EmbeddedZooKeeper.start();
        clientA = LockClient.connect(zooKeeper.uri());
        clientB = LockClient.connect(zooKeeper.uri());
        nodeA = new LatchkeyLockProvider(clientA);
        nodeB = new LatchkeyLockProvider(clientB);
    }

    @AfterAll
    static void stop() {
        nodeA.close();
        nodeB.close();
        clientA.close();
        clientB.close();
        zooKeeper.close();
    }

    private static LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(Instant.now(), name, atMost, atLeast);
    }

    @Test
    void aTaskRunsOnOneNodeAndTheOtherSkipsQuietly() throws Throwable {
        LockingTaskExecutor a = new DefaultLockingTaskExecutor(nodeA);
        LockingTaskExecutor b = new DefaultLockingTaskExecutor(nodeB);
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread first = new Thread(() -> a.executeWithLock((Runnable) () -> {
            running.countDown();
            awaitQuietly(finish);
        }, config("skip", Duration.ofMinutes(1), Duration.ZERO)), "shedlock-test-a");
        first.start();
        assertThat(running.await(20, TimeUnit.SECONDS)).isTrue();
        AtomicBoolean ranOnB = new AtomicBoolean();
        LockingTaskExecutor.TaskResult<String> result = b.executeWithLock(() -> {
            ranOnB.set(true);
            return "b";
        }, config("skip", Duration.ofMinutes(1), Duration.ZERO));
        assertThat(result.wasExecuted()).isFalse();
        assertThat(ranOnB).isFalse();
        finish.countDown();
        first.join(20_000);
        assertThat(b.executeWithLock(() -> "b", config("skip", Duration.ofMinutes(1), Duration.ZERO)).getResult())
                .isEqualTo("b");
    }

    @Test
    void lockAtLeastForKeepsAFastTasksLock() {
        LockingTaskExecutor a = new DefaultLockingTaskExecutor(nodeA);
        a.executeWithLock((Runnable) () -> { }, config("at-least", Duration.ofMinutes(1), Duration.ofMillis(1500)));
        assertThat(nodeB.lock(config("at-least", Duration.ofMinutes(1), Duration.ZERO))).isEmpty();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Optional<SimpleLock> lock = nodeB.lock(config("at-least", Duration.ofMinutes(1), Duration.ZERO));
            lock.ifPresent(SimpleLock::unlock);
            return lock.isPresent();
        });
    }

    @Test
    void lockAtMostForReleasesALongTasksLock() {
        SimpleLock lock = nodeA.lock(config("at-most", Duration.ofMillis(800), Duration.ZERO)).orElseThrow();
        assertThat(nodeB.lock(config("at-most", Duration.ofMinutes(1), Duration.ZERO))).isEmpty();
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            Optional<SimpleLock> other = nodeB.lock(config("at-most", Duration.ofMinutes(1), Duration.ZERO));
            other.ifPresent(SimpleLock::unlock);
            return other.isPresent();
        });
        lock.unlock(); // late unlock of an expired lock: no error, nothing released twice
    }

    @Test
    void lockExtenderMovesTheLimitsAndSpendsTheOldHandle() throws Throwable {
        LockingTaskExecutor a = new DefaultLockingTaskExecutor(nodeA);
        a.executeWithLock((LockingTaskExecutor.Task) () -> {
            // extended from 500 ms to 1 minute: still held after the first limit passed
            LockExtender.extendActiveLock(Duration.ofMinutes(1), Duration.ZERO);
            Thread.sleep(1200);
            assertThat(nodeB.lock(config("extend", Duration.ofMinutes(1), Duration.ZERO))).isEmpty();
        }, config("extend", Duration.ofMillis(500), Duration.ZERO));
        assertThat(nodeB.lock(config("extend", Duration.ofMinutes(1), Duration.ZERO))).hasValueSatisfying(
                SimpleLock::unlock);

        SimpleLock first = nodeA.lock(config("extend-handle", Duration.ofMinutes(1), Duration.ZERO)).orElseThrow();
        SimpleLock second = first.extend(Duration.ofMinutes(2), Duration.ZERO).orElseThrow();
        assertThatThrownBy(first::unlock).isInstanceOf(IllegalStateException.class);
        second.unlock();
        assertThatThrownBy(() -> second.extend(Duration.ofMinutes(1), Duration.ZERO))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("already unlocked");
    }

    @Test
    void badLimitsAreRefusedWithTheReason() {
        SimpleLock lock = nodeA.lock(config("bad", Duration.ofMinutes(1), Duration.ZERO)).orElseThrow();
        try {
            assertThatThrownBy(() -> lock.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lockAtLeastFor");
        } finally {
            lock.unlock();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
