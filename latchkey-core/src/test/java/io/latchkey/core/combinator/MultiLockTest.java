package io.latchkey.core.combinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.latchkey.Locks;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class MultiLockTest {

    private final MemServers servers = new MemServers();

    @AfterEach
    void closeClients() {
        servers.close();
    }

    @Test
    void takesEveryPartAndReleasesEveryPart() throws InterruptedException {
        LockClient s0 = servers.client(0);
        LockClient s1 = servers.client(1);
        DistributedLock a = s0.lock("a");
        DistributedLock b = s1.lock("b");
        DistributedLock multi = Locks.multiLock(b, a);

        try (LockLease lease = multi.acquire()) {
            assertThat(lease.isValid()).isTrue();
            assertThat(a.isLocked()).isTrue();
            assertThat(b.isLocked()).isTrue();
            assertThat(lease.lockName()).isEqualTo("multiLock[a, b]");
        }
        assertThat(a.isLocked()).isFalse();
        assertThat(b.isLocked()).isFalse();

        multi.lock();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        assertThat(a.isHeldByCurrentThread()).isTrue();
        assertThat(b.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        assertThat(a.isLocked()).isFalse();
        assertThat(b.isLocked()).isFalse();
    }

    @Test
    void leaseTimesOutWhenOnePartIsBusyAndGivesBackWhatItTook() throws InterruptedException {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        LockLease other = servers.client(1).lock("b").acquire();

        long start = System.nanoTime();
        Optional<LockLease> lease = Locks.multiLock(a, b).tryAcquire(Duration.ofMillis(150), Duration.ofSeconds(5));

        assertThat(lease).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(140));
        assertThat(a.isLocked()).as("part taken before the busy one is given back").isFalse();
        other.release();
    }

    @Test
    void aFailingPartGivesBackThePartsTakenBeforeIt() {
        DistributedLock a = servers.client(0).lock("a");
        MemLockClient s1 = (MemLockClient) servers.client(1);
        DistributedLock b = s1.lock("b");
        DistributedLock multi = Locks.multiLock(a, b);
        s1.setServerAvailable(false);
        try {
            assertThatThrownBy(() -> multi.tryAcquire(Duration.ofSeconds(1), Duration.ofSeconds(5)))
                    .isInstanceOf(LockUnavailableException.class);
            assertThatThrownBy(multi::lock).isInstanceOf(LockUnavailableException.class);
            assertThat(a.isLocked()).isFalse();
            assertThat(multi.isHeldByCurrentThread()).isFalse();
        } finally {
            s1.setServerAvailable(true);
        }
        assertThat(b.isLocked()).isFalse();
    }

    @Test
    void threadOwnedTryLockIsAllOrNothing() throws InterruptedException {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        LockLease other = servers.client(1).lock("b").acquire();
        DistributedLock multi = Locks.multiLock(a, b);

        assertThat(multi.tryLock()).isFalse();
        assertThat(multi.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
        assertThat(a.isLocked()).isFalse();
        assertThat(a.getHoldCount()).isZero();
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("multiLock[a, b]");

        other.release();
        assertThat(multi.tryLock(1, TimeUnit.SECONDS)).isTrue();
        multi.unlock();
    }

    @Test
    void threadOwnedIsReentrantLikeItsParts() {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        DistributedLock multi = Locks.multiLock(a, b);

        multi.lock();
        multi.lock(Duration.ofSeconds(5));
        assertThat(multi.getHoldCount()).isEqualTo(2);
        assertThat(multi.fencingToken()).isEqualTo(a.fencingToken());
        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        multi.unlock();
        assertThat(multi.getHoldCount()).isZero();
        assertThat(multi.fencingToken()).isEmpty();
        assertThat(multi.isLocked()).isFalse();
    }

    @Test
    void fencingTokenIsTheFirstPartInNameOrder() throws InterruptedException {
        DistributedLock z = servers.client(0).lock("z");
        DistributedLock m = servers.client(1).lock("m");
        for (int i = 0; i < 3; i++) {
            z.acquire().release();   // so that the two parts' tokens differ
        }
        DistributedLock multi = Locks.multiLock(z, m);

        multi.lock();
        try {
            assertThat(multi.fencingToken()).isEqualTo(m.fencingToken()).isNotEqualTo(z.fencingToken());
        } finally {
            multi.unlock();
        }
        long first;
        try (LockLease lease = multi.acquire()) {
            first = lease.fencingToken();
        }
        try (LockLease lease = multi.acquire(Duration.ofSeconds(5))) {
            assertThat(lease.fencingToken()).isGreaterThan(first);
        }
    }

    @Test
    void overlappingMultiLocksInReversedOrderNeverDeadlock() throws Exception {
        // distinct names, and the same name on two servers (the tie case), through both ownership modes
        runReversedPairs(servers.client(0), servers.client(1), "x", "y", true);
        runReversedPairs(servers.client(0), servers.client(1), "same", "same", false);
    }

    private void runReversedPairs(LockClient c0, LockClient c1, String name0, String name1, boolean threadOwned)
            throws Exception {
        int iterations = 300;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        Thread[] threads = new Thread[2];
        for (int t = 0; t < 2; t++) {
            // each thread uses its own clients, so that the two are distinct owners on both servers
            LockClient own0 = servers.client(0);
            LockClient own1 = servers.client(1);
            DistributedLock p = own0.lock(name0);
            DistributedLock q = own1.lock(name1);
            DistributedLock multi = t == 0 ? Locks.multiLock(p, q) : Locks.multiLock(q, p);
            threads[t] = new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < iterations; i++) {
                        LockLease lease = threadOwned ? null : multi.acquire();
                        if (threadOwned) {
                            multi.lock();
                        }
                        try {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            inside.decrementAndGet();
                        } finally {
                            if (threadOwned) {
                                multi.unlock();
                            } else {
                                lease.release();
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "reversed-multilock-" + t);
            threads[t].setDaemon(true);
            threads[t].start();
        }
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(20));
            assertThat(t.isAlive()).as("%s finished (no deadlock)", t.getName()).isFalse();
        }
        assertThat(failure.get()).isNull();
        assertThat(maxInside.get()).isEqualTo(1);
        assertThat(c0.lock(name0).isLocked()).isFalse();
        assertThat(c1.lock(name1).isLocked()).isFalse();
    }

    @Test
    void interruptedWaitLeavesNothingHeld() throws Exception {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        LockLease blocker = servers.client(1).lock("b").acquire();
        DistributedLock multi = Locks.multiLock(a, b);

        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                multi.lockInterruptibly();
                outcome.set(new AssertionError("acquired"));
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "multilock-interrupted");
        waiter.start();
        await().atMost(Duration.ofSeconds(5)).until(a::isLocked);   // holds "a", waits for "b"
        waiter.interrupt();
        waiter.join(5000);

        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(a.isLocked()).isFalse();
        blocker.release();
        assertThat(b.isLocked()).isFalse();
    }

    @Test
    void interruptedLeaseWaitLeavesNothingHeld() throws Exception {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        LockLease blocker = servers.client(1).lock("b").acquire();
        DistributedLock multi = Locks.multiLock(a, b);

        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                multi.acquire(Duration.ofSeconds(10));
                outcome.set(new AssertionError("acquired"));
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "multilock-lease-interrupted");
        waiter.start();
        await().atMost(Duration.ofSeconds(5)).until(a::isLocked);
        waiter.interrupt();
        waiter.join(5000);

        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        assertThat(a.isLocked()).isFalse();
        blocker.release();
    }

    @Test
    void losingOnePartLosesTheLeaseAndReleaseStillReleasesTheOthers() throws InterruptedException {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        LockLease lease = Locks.multiLock(a, b).acquire();
        AtomicBoolean told = new AtomicBoolean();
        lease.onLost(() -> told.set(true));

        assertThat(servers.client(1).lock("b").forceUnlock()).isTrue();
        await().atMost(Duration.ofSeconds(5)).untilTrue(told);   // the watchdog notices within a renewal
        assertThat(lease.isValid()).isFalse();

        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class)
                .hasMessageContaining("multiLock[a, b]");
        assertThat(a.isLocked()).isFalse();
        lease.release();   // idempotent
    }

    @Test
    void threadOwnedUnlockReportsALostPartAfterUnlockingTheRest() {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        DistributedLock multi = Locks.multiLock(a, b);
        multi.lock(Duration.ofSeconds(30));
        assertThat(servers.client(0).lock("a").forceUnlock()).isTrue();

        assertThatThrownBy(multi::unlock).isInstanceOf(LockLostException.class);
        assertThat(b.isLocked()).isFalse();
    }

    @Test
    void asyncAcquireWaitsWithoutBlockingAndTimesOutCleanly() throws Exception {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        LockLease blocker = servers.client(1).lock("b").acquire();
        DistributedLock multi = Locks.multiLock(a, b);

        Optional<LockLease> none = multi.tryAcquireAsync(Duration.ofMillis(100), null).get(5, TimeUnit.SECONDS);
        assertThat(none).isEmpty();
        await().atMost(Duration.ofSeconds(2)).until(() -> !a.isLocked());

        CompletableFuture<LockLease> pending = multi.acquireAsync();
        await().atMost(Duration.ofSeconds(5)).until(a::isLocked);
        assertThat(pending).isNotDone();
        blocker.release();
        LockLease lease = pending.get(5, TimeUnit.SECONDS);
        assertThat(b.isLocked()).isTrue();
        lease.release();
        assertThat(a.isLocked()).isFalse();
        assertThat(b.isLocked()).isFalse();
    }

    @Test
    void cancellingAnAsyncAcquireLeavesNothingHeld() throws Exception {
        DistributedLock a = servers.client(0).lock("a");
        DistributedLock b = servers.client(1).lock("b");
        LockLease blocker = servers.client(1).lock("b").acquire();

        CompletableFuture<LockLease> pending = Locks.multiLock(a, b).acquireAsync();
        await().atMost(Duration.ofSeconds(5)).until(a::isLocked);
        pending.cancel(false);
        await().atMost(Duration.ofSeconds(5)).until(() -> !a.isLocked());
        blocker.release();
        await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !b.isLocked());
    }

    @Test
    void composesWithRedLocks() throws InterruptedException {
        List<LockClient> three = List.of(servers.client(0), servers.client(1), servers.client(2));
        DistributedLock red1 = Locks.redLock(MemServers.locks(three, "r1"));
        DistributedLock red2 = Locks.redLock(MemServers.locks(three, "r2"));
        DistributedLock both = Locks.multiLock(red2, red1);

        try (LockLease lease = both.acquire(Duration.ofSeconds(5))) {
            assertThat(lease.isValid()).isTrue();
            assertThat(Locks.redLock(MemServers.locks(List.of(servers.client(0), servers.client(1),
                    servers.client(2)), "r2")).tryAcquire(Duration.ZERO)).isEmpty();
        }
        both.lock();
        assertThat(red1.isHeldByCurrentThread()).isTrue();
        assertThat(red2.isHeldByCurrentThread()).isTrue();
        both.unlock();
        assertThat(red1.isLocked()).isFalse();
        assertThat(red2.isLocked()).isFalse();
    }

    @Test
    void checksItsArguments() {
        DistributedLock a = servers.client(0).lock("a");
        assertThatThrownBy(() -> Locks.multiLock()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one lock");
        assertThatThrownBy(() -> Locks.multiLock(a, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("locks[1] is null");
        assertThatThrownBy(() -> Locks.multiLock(a, a)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("locks[1] is the same lock object as locks[0]");
        assertThatThrownBy(() -> Locks.multiLock(a).lock(ClientOptions.MAX_LEASE_TIME.plusMillis(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MAX_LEASE_TIME");
        assertThatThrownBy(() -> Locks.multiLock(a).lock(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime must be positive");
        assertThat(a.isLocked()).isFalse();
    }
}
