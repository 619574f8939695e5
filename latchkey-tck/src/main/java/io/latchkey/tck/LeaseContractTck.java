package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The lease-handle API of {@link DistributedLock}: leases as owners (not reentrant, releasable from any thread),
 * timed and interrupted acquires, and the asynchronous forms.
 */
public abstract class LeaseContractTck extends TckBase {

    @Test
    void acquireAndReleaseALease() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        LockLease lease = lock.acquire();
        assertThat(lease.lockName()).isEqualTo(name);
        assertThat(lease.isValid()).isTrue();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).as("a lease is not a thread hold").isFalse();
        assertThat(lock.fencingToken()).isEmpty();

        lease.release();
        assertThat(lease.isValid()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        lease.release();
        lease.close();
        assertThat(lock.isLocked()).as("releasing twice is harmless").isFalse();
    }

    @Test
    void tryWithResourcesReleases() throws Exception {
        DistributedLock lock = client().lock(newName());
        LockLease outer;
        try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
            outer = lease;
            assertThat(lock.isLocked()).isTrue();
        }
        assertThat(outer.isValid()).isFalse();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void leasesAreNotReentrant() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        try (LockLease lease = lock.acquire()) {
            assertThat(lock.tryAcquire(Duration.ZERO)).as("second lease, same thread").isEmpty();
            long start = System.nanoTime();
            assertThat(lock.tryAcquire(Duration.ofMillis(200), Duration.ofSeconds(5))).isEmpty();
            assertThat(millisSince(start)).isGreaterThanOrEqualTo(190);
            assertThat(lock.tryLock()).as("thread-owned lock while a lease of this thread holds it").isFalse();
            assertThat(lease.isValid()).isTrue();
        }
    }

    @Test
    void threadHoldExcludesLeasesOfTheSameThread() throws Exception {
        DistributedLock lock = client().lock(newName());
        lock.lock();
        try {
            assertThat(lock.tryAcquire(Duration.ZERO)).isEmpty();
        } finally {
            lock.unlock();
        }
        Optional<LockLease> lease = lock.tryAcquire(Duration.ZERO);
        assertThat(lease).isPresent();
        lease.get().release();
    }

    @Test
    void aLeaseCanBeReleasedByAnotherThread() throws Exception {
        String name = newName();
        LockLease lease = client().lock(name).acquire();
        Forked<Boolean> releaser = fork("releaser", () -> {
            lease.release();
            return lease.isValid();
        });
        assertThat(releaser.get(slack())).isFalse();
        assertThat(openClient().lock(name).isLocked()).isFalse();
    }

    @Test
    void leasesExcludeEachOtherAcrossClients() throws Exception {
        String name = newName();
        DistributedLock first = client().lock(name);
        DistributedLock second = openClient().lock(name);
        LockLease lease = first.acquire();
        assertThat(second.tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(second.tryLock()).isFalse();
        lease.release();
        Optional<LockLease> next = second.tryAcquire(Duration.ZERO);
        assertThat(next).isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(lease.fencingToken());
        next.get().release();
    }

    @Test
    void acquireWaitsForTheHolder() throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        LockClient other = openClient();
        Forked<Long> waiter = fork("waiter", () -> {
            try (LockLease lease = other.lock(name).acquire()) {
                return lease.fencingToken();
            }
        });
        awaitBlocked(waiter);
        Thread.sleep(100);
        assertThat(waiter.isDone()).isFalse();
        holder.release();
        assertThat(waiter.get(slack())).isGreaterThan(holder.fencingToken());
    }

    @Test
    void tryAcquireGivesUpAfterAboutTheWaitTime() throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        DistributedLock other = openClient().lock(name);
        long start = System.nanoTime();
        assertThat(other.tryAcquire(Duration.ofMillis(300))).isEmpty();
        assertThat(millisSince(start)).as("ms tryAcquire(300 ms) waited")
                .isGreaterThanOrEqualTo(290).isLessThan(300 + slack().toMillis());
        start = System.nanoTime();
        assertThat(other.tryAcquire(Duration.ofMillis(300), Duration.ofSeconds(5))).isEmpty();
        assertThat(millisSince(start)).as("ms tryAcquire(300 ms, lease) waited")
                .isGreaterThanOrEqualTo(290).isLessThan(300 + slack().toMillis());
        holder.release();
    }

    @Test
    void interruptedAcquireThrowsAndLeavesNoLock() throws Exception {
        assertInterruptedAcquireLeavesNoLock(DistributedLock::acquire);
    }

    @Test
    void interruptedFixedLeaseAcquireThrowsAndLeavesNoLock() throws Exception {
        assertInterruptedAcquireLeavesNoLock(lock -> lock.acquire(Duration.ofSeconds(30)));
    }

    @Test
    void interruptedTryAcquireThrowsAndLeavesNoLock() throws Exception {
        assertInterruptedAcquireLeavesNoLock(lock -> lock.tryAcquire(Duration.ofSeconds(30)).orElse(null));
    }

    @Test
    void acquireAsyncCompletesWhenTheHolderReleasesElsewhere() throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        CompletableFuture<LockLease> future = openClient().lock(name).acquireAsync();
        Thread.sleep(200);
        assertThat(future).as("acquireAsync of a held lock").isNotDone();
        long start = System.nanoTime();
        holder.release();
        LockLease lease = future.get(slack().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(millisSince(start)).isLessThan(slack().toMillis());
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.fencingToken()).isGreaterThan(holder.fencingToken());
        assertThat(client().lock(name).tryLock()).isFalse();
        lease.releaseAsync().get(slack().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(lease.isValid()).isFalse();
        assertThat(client().lock(name).isLocked()).isFalse();
    }

    @Test
    void acquireAsyncOfAFreeLockCompletesAtOnce() throws Exception {
        DistributedLock lock = client().lock(newName());
        LockLease lease = lock.acquireAsync().get(slack().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(lease.isValid()).isTrue();
        assertThat(lock.isLocked()).isTrue();
        lease.release();
    }

    @Test
    void cancellingAcquireAsyncLeavesNoLock() throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        LockClient waiterClient = openClient();
        CompletableFuture<LockLease> future = waiterClient.lock(name).acquireAsync();
        Thread.sleep(100);
        assertThat(future.cancel(true)).isTrue();
        holder.release();
        DistributedLock third = openClient().lock(name);
        Optional<LockLease> lease = third.tryAcquire(Duration.ofMillis(200));
        assertThat(lease).as("free right after the holder's release").isPresent();
        lease.get().release();
        Optional<LockLease> again = waiterClient.lock(name).tryAcquire(Duration.ofMillis(200));
        assertThat(again).as("the cancelling client can acquire again").isPresent();
        again.get().release();
    }

    /** Cancelling right as the lock frees up: the grant either reaches the caller or is given back. */
    @Test
    void cancellingAcquireAsyncWhileItIsGrantedLeavesNoLock() throws Exception {
        String name = newName();
        DistributedLock holderLock = client().lock(name);
        DistributedLock waiterLock = openClient().lock(name);
        DistributedLock probe = openClient().lock(name);
        for (int round = 0; round < 10; round++) {
            LockLease holder = holderLock.acquire();
            CompletableFuture<LockLease> future = waiterLock.acquireAsync();
            if (round % 2 == 1) {
                Thread.sleep(20);
            }
            holder.releaseAsync();
            boolean cancelled = future.cancel(true);
            if (!cancelled) {
                LockLease won = future.get(slack().toMillis(), TimeUnit.MILLISECONDS);
                assertThat(won.isValid()).isTrue();
                won.release();
            }
            Optional<LockLease> free = probe.tryAcquire(Duration.ofMillis(300));
            assertThat(free).as("round %d (cancelled: %s): free afterwards", round, cancelled).isPresent();
            free.get().release();
        }
    }

    @Test
    void tryAcquireAsyncCompletesEmptyWhenTheWaitRunsOut() throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        long start = System.nanoTime();
        CompletableFuture<Optional<LockLease>> future =
                openClient().lock(name).tryAcquireAsync(Duration.ofMillis(300), null);
        assertThat(future.get(300 + slack().toMillis(), TimeUnit.MILLISECONDS)).isEmpty();
        assertThat(millisSince(start)).isGreaterThanOrEqualTo(290);
        assertThat(holder.isValid()).isTrue();
        holder.release();
    }

    @Test
    void tryAcquireAsyncSucceedsWhenReleasedDuringTheWait() throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        CompletableFuture<Optional<LockLease>> future =
                openClient().lock(name).tryAcquireAsync(Duration.ofSeconds(20), Duration.ofSeconds(10));
        Thread.sleep(100);
        assertThat(future).isNotDone();
        holder.release();
        Optional<LockLease> lease = future.get(slack().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(lease).isPresent();
        assertThat(lease.get().isValid()).isTrue();
        lease.get().release();
    }

    @Test
    void manyAsyncWaitersAreServedOneAtATime() throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicInteger count = new AtomicInteger();
        for (int i = 0; i < 50; i++) {
            LockClient c = i % 2 == 0 ? client() : openClientOnce();
            done.add(c.lock(name).acquireAsync().thenCompose(lease -> {
                maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                count.incrementAndGet();
                inside.decrementAndGet();
                return lease.releaseAsync();
            }));
        }
        holder.release();
        CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        assertThat(count).hasValue(50);
        assertThat(maxInside).hasValue(1);
        assertThat(client().lock(name).isLocked()).isFalse();
    }

    private LockClient second;

    private LockClient openClientOnce() {
        if (second == null) {
            second = openClient();
        }
        return second;
    }

    @FunctionalInterface
    protected interface LeaseAttempt {
        LockLease run(DistributedLock lock) throws Exception;
    }

    private void assertInterruptedAcquireLeavesNoLock(LeaseAttempt attempt) throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        LockClient waiterClient = openClient();
        Forked<Object> waiter = fork("waiter", () -> {
            try {
                return attempt.run(waiterClient.lock(name));
            } catch (InterruptedException e) {
                return e;
            }
        });
        awaitBlocked(waiter);
        Thread.sleep(50);
        waiter.thread().interrupt();
        assertThat(waiter.get(slack())).isInstanceOf(InterruptedException.class);
        holder.release();
        Optional<LockLease> lease = openClient().lock(name).tryAcquire(Duration.ofMillis(200));
        assertThat(lease).as("free right after the holder's release").isPresent();
        lease.get().release();
    }
}
