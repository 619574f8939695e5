package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Capability;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockClient#semaphore}: {@link java.util.concurrent.Semaphore} semantics across clients — permits are
 * set once, not owned, waiters are woken by releases anywhere, timed and interrupted acquires take nothing, and at
 * most N holders run at once. Skipped (with the reason) for backends without {@link Capability#SEMAPHORE}.
 */
public abstract class SemaphoreTck extends TckBase {

    @BeforeEach
    final void requireSemaphores() {
        assumeCapability(Capability.SEMAPHORE);
    }

    @Test
    void permitsAreSetOnceAndSharedAcrossClients() throws Exception {
        String name = newName();
        DistributedSemaphore semaphore = client().semaphore(name);
        DistributedSemaphore other = openClient().semaphore(name);
        assertThat(semaphore.name()).isEqualTo(name);
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.tryAcquire()).as("a semaphore starts without permits").isFalse();
        assertThat(semaphore.trySetPermits(3)).isTrue();
        assertThat(other.trySetPermits(5)).as("permits are set once").isFalse();
        assertThat(other.availablePermits()).isEqualTo(3);

        semaphore.acquire();
        assertThat(other.tryAcquire()).isTrue();
        assertThat(other.tryAcquire(1, Duration.ZERO)).isTrue();
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.tryAcquire()).isFalse();
        other.release();
        assertThat(semaphore.availablePermits()).as("any client may release").isEqualTo(1);
        semaphore.release(2);
        assertThat(other.availablePermits()).isEqualTo(3);
    }

    @Test
    void countsAboveIntegerMaxValueSaturateOnEveryBackend() throws Exception {
        DistributedSemaphore semaphore = client().semaphore(newName());
        assertThat(semaphore.trySetPermits(Integer.MAX_VALUE)).isTrue();
        semaphore.addPermits(10);
        assertThat(semaphore.availablePermits()).isEqualTo(Integer.MAX_VALUE);
        semaphore.release(5);
        assertThat(openClient().semaphore(semaphore.name()).availablePermits()).isEqualTo(Integer.MAX_VALUE);
        assertThat(semaphore.tryAcquire(3, Duration.ZERO)).isTrue();
        assertThat(semaphore.availablePermits()).isEqualTo(Integer.MAX_VALUE);
        if (!backendName().equals("zookeeper")) { // ZooKeeper takes a drained permit as a node: not 2^31 of them
            assertThat(semaphore.drainPermits()).isEqualTo(Integer.MAX_VALUE);
            assertThat(semaphore.availablePermits()).isZero();
        }
    }

    @Test
    void addPermitsMayTakeTheCountBelowZeroLikeReducePermits() throws Exception {
        DistributedSemaphore semaphore = client().semaphore(newName());
        semaphore.addPermits(-3);
        assertThat(semaphore.availablePermits()).isEqualTo(-3);
        assertThat(openClient().semaphore(semaphore.name()).availablePermits()).isEqualTo(-3);
        assertThat(semaphore.tryAcquire()).isFalse();
        semaphore.release(4);
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        assertThat(semaphore.tryAcquire()).isTrue();
        assertThat(semaphore.availablePermits()).isZero();
    }

    @Test
    void addAndDrainPermits() {
        DistributedSemaphore semaphore = client().semaphore(newName());
        semaphore.addPermits(4);
        assertThat(semaphore.availablePermits()).isEqualTo(4);
        semaphore.addPermits(-1);
        assertThat(semaphore.availablePermits()).isEqualTo(3);
        assertThat(semaphore.drainPermits()).isEqualTo(3);
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.drainPermits()).isZero();
    }

    @Test
    void aWaiterIsWokenByAReleaseInAnotherClient() throws Exception {
        String name = newName();
        DistributedSemaphore semaphore = client().semaphore(name);
        semaphore.trySetPermits(1);
        semaphore.acquire();
        LockClient waiterClient = openClient();
        Forked<Boolean> waiter = fork("waiter", () -> {
            waiterClient.semaphore(name).acquire(2);
            return true;
        });
        awaitBlocked(waiter);
        semaphore.addPermits(1);
        Thread.sleep(200);
        assertThat(waiter.isDone()).as("acquire(2) returned with one permit available").isFalse();
        semaphore.release();
        assertThat(waiter.get(slack())).isTrue();
        assertThat(semaphore.availablePermits()).isZero();
    }

    @Test
    void timedAcquireGivesUpAfterAboutTheWaitAndTakesNothing() throws Exception {
        DistributedSemaphore semaphore = client().semaphore(newName());
        semaphore.trySetPermits(1);
        long start = System.nanoTime();
        assertThat(semaphore.tryAcquire(2, Duration.ofMillis(300))).isFalse();
        assertThat(millisSince(start)).isGreaterThanOrEqualTo(290).isLessThan(300 + slack().toMillis());
        assertThat(semaphore.availablePermits()).as("a failed tryAcquire(2) took nothing").isEqualTo(1);
    }

    @Test
    void interruptedAcquireThrowsAndTakesNothing() throws Exception {
        String name = newName();
        DistributedSemaphore semaphore = client().semaphore(name);
        semaphore.trySetPermits(1);
        LockClient waiterClient = openClient();
        Forked<Object> waiter = fork("waiter", () -> {
            try {
                waiterClient.semaphore(name).acquire(2);
                return "acquired";
            } catch (InterruptedException e) {
                return e;
            }
        });
        awaitBlocked(waiter);
        waiter.thread().interrupt();
        assertThat(waiter.get(slack())).isInstanceOf(InterruptedException.class);
        semaphore.release();
        Thread.sleep(100);
        assertThat(semaphore.availablePermits()).as("the interrupted acquire(2) took nothing").isEqualTo(2);
    }

    @Test
    void badPermitCountsAreRejected() {
        DistributedSemaphore semaphore = client().semaphore(newName());
        assertThatThrownBy(() -> semaphore.acquire(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.tryAcquire(-1, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.release(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.trySetPermits(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void atMostNHoldersAtOnceAcrossClients() throws Exception {
        String name = newName();
        int permits = 2;
        client().semaphore(name).trySetPermits(permits);
        List<LockClient> clients = List.of(client(), openClient(), openClient());
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicInteger entries = new AtomicInteger();
        AtomicInteger threadNumber = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(6, r -> {
            Thread t = new Thread(r, "tck-semaphore-" + threadNumber.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                DistributedSemaphore semaphore = clients.get(t % clients.size()).semaphore(name);
                done.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        semaphore.acquire();
                        try {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            Thread.sleep(1);
                            entries.incrementAndGet();
                            inside.decrementAndGet();
                        } finally {
                            semaphore.release();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(entries).hasValue(120);
        assertThat(maxInside.get()).isBetween(1, permits);
        assertThat(client().semaphore(name).availablePermits()).isEqualTo(permits);
    }

    @Test
    void asyncAcquireCompletesOnAReleaseElsewhereTimesOutAndCancelsLeavingNothing() throws Exception {
        String name = newName();
        DistributedSemaphore semaphore = client().semaphore(name);
        DistributedSemaphore other = openClient().semaphore(name);
        semaphore.trySetPermits(1);
        other.acquire();

        CompletableFuture<Void> waiting = asyncOrSkip(() -> semaphore.acquireAsync(1));
        assertThat(semaphore.tryAcquireAsync(1, Duration.ofMillis(100)).get(10, TimeUnit.SECONDS))
                .as("a timed asynchronous acquire gives up").isFalse();
        assertThat(waiting).as("no permit yet").isNotDone();
        other.release();
        waiting.get(10, TimeUnit.SECONDS);
        assertThat(semaphore.availablePermits()).isZero();
        semaphore.releaseAsync(1).get(10, TimeUnit.SECONDS);
        assertThat(other.availablePermits()).isEqualTo(1);

        other.acquire();
        CompletableFuture<Void> cancelled = semaphore.acquireAsync(1);
        assertThat(cancelled.cancel(false)).isTrue();
        other.release();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(other.availablePermits()).as("a cancelled waiter takes nothing").isEqualTo(1));
        assertThat(other.tryAcquire(1, Duration.ofSeconds(5))).isTrue();
    }
}
