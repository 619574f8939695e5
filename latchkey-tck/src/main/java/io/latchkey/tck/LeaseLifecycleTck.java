package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What happens to a hold over time: fixed leases expire, the watchdog keeps a lock alive, a lost lock is reported
 * (invalid lease, {@code onLost} once, {@link LockLostException} on unlock), fencing tokens only grow — across
 * clients and client restarts — and closing a client gives up its waits and holds honestly.
 */
public abstract class LeaseLifecycleTck extends TckBase {

    private static final Duration SHORT_LEASE = Duration.ofMillis(300);

    @Test
    void fixedThreadLeaseExpiresAndTheNextUnlockThrowsLost() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        DistributedLock other = openClient().lock(name);
        long start = System.nanoTime();
        lock.lock(SHORT_LEASE);
        assertThat(other.tryLock(SHORT_LEASE.plus(slack()).toMillis(), TimeUnit.MILLISECONDS))
                .as("another client acquires after the fixed lease").isTrue();
        assertThat(millisSince(start)).as("ms until the fixed lease let go")
                .isGreaterThanOrEqualTo(SHORT_LEASE.toMillis() - 20);
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class)
                .satisfies(e -> assertThat(((LockLostException) e).lockName()).isEqualTo(name));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(other.isHeldByCurrentThread()).isTrue();
        other.unlock();
    }

    @Test
    void fixedThreadLeaseThatRanOutUnnoticedIsLostToo() throws Exception {
        DistributedLock lock = client().lock(newName());
        DistributedLock observer = openClient().lock(lock.name());
        lock.lock(SHORT_LEASE);
        await().atMost(SHORT_LEASE.plus(slack())).until(() -> !observer.isLocked());
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void fixedLeaseExpiresAndReportsLost() throws Exception {
        String name = newName();
        LockLease lease = client().lock(name).acquire(SHORT_LEASE);
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        Optional<LockLease> next = openClient().lock(name).tryAcquire(SHORT_LEASE.plus(slack()));
        assertThat(next).as("another client acquires after the fixed lease").isPresent();
        await().atMost(slack()).untilAsserted(() -> {
            assertThat(lease.isValid()).isFalse();
            assertThat(lost).hasValue(1);
        });
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        assertThat(next.get().isValid()).as("the old lease's release must not free the new holder").isTrue();
        assertThat(client().lock(name).isLocked()).isTrue();
        AtomicInteger late = new AtomicInteger();
        lease.onLost(late::incrementAndGet);
        assertThat(late).as("a listener added after the loss runs at once").hasValue(1);
        assertThat(lost).hasValue(1);
        next.get().release();
    }

    /** A thread hold and a lease (on two names, at once, to save time) outlive several watchdog timeouts. */
    @Test
    void watchdogKeepsThreadHoldsAndLeasesAliveForSeveralPeriods() throws Exception {
        String threadName = newName();
        String leaseName = newName();
        DistributedLock lock = client().lock(threadName);
        lock.lock();
        LockLease lease = client().lock(leaseName).acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        LockClient other = openClient();
        DistributedLock otherThreadLock = other.lock(threadName);
        DistributedLock otherLeaseLock = other.lock(leaseName);
        Duration several = watchdogTimeout().multipliedBy(3);
        await().during(several).atMost(several.plus(slack())).pollInterval(Duration.ofMillis(50))
                .until(() -> otherThreadLock.isLocked() && otherLeaseLock.isLocked() && lease.isValid());
        assertThat(otherThreadLock.tryLock()).isFalse();
        assertThat(otherLeaseLock.tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        lease.release();
        assertThat(lost).as("onLost after a normal release").hasValue(0);
        assertThat(otherThreadLock.tryLock()).isTrue();
        otherThreadLock.unlock();
        assertThat(otherLeaseLock.isLocked()).isFalse();
    }

    @Test
    void watchdogLeaseForceUnlockedElsewhereIsLostAndToldOnce() throws Exception {
        String name = newName();
        LockLease lease = client().lock(name).acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        DistributedLock admin = openClient().lock(name);
        assertThat(admin.forceUnlock()).isTrue();
        Optional<LockLease> next = admin.tryAcquire(slack());
        assertThat(next).isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(lease.fencingToken());

        await().atMost(watchdogTimeout().plus(slack())).untilAsserted(() -> {
            assertThat(lease.isValid()).isFalse();
            assertThat(lost).hasValue(1);
        });
        // A few more renewal periods: the loss is reported once, not at every renewal.
        await().during(watchdogTimeout()).atMost(watchdogTimeout().plus(slack())).until(() -> lost.get() == 1);
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        assertThat(next.get().isValid()).isTrue();
        assertThat(admin.isLocked()).as("the lost lease's release must not free the new holder").isTrue();
        next.get().release();
        assertThat(lost).hasValue(1);
    }

    @Test
    void watchdogLeaseForceUnlockedIsLostEvenIfNobodyTookIt() throws Exception {
        String name = newName();
        LockLease lease = client().lock(name).acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        assertThat(openClient().lock(name).forceUnlock()).isTrue();
        await().atMost(watchdogTimeout().plus(slack())).untilAsserted(() -> {
            assertThat(lease.isValid()).isFalse();
            assertThat(lost).hasValue(1);
        });
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
    }

    @Test
    void releaseRightAfterForceUnlockThrowsLost() throws Exception {
        String name = newName();
        LockLease lease = client().lock(name).acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        assertThat(openClient().lock(name).forceUnlock()).isTrue();
        // Before the watchdog could notice: the release itself finds out.
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        assertThat(lease.isValid()).isFalse();
        await().during(watchdogTimeout()).atMost(watchdogTimeout().plus(slack())).until(() -> lost.get() <= 1);
    }

    @Test
    void threadHoldForceUnlockedElsewhereThrowsLostOnUnlock() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        lock.lock();
        DistributedLock other = openClient().lock(name);
        assertThat(other.forceUnlock()).isTrue();
        assertThat(other.tryLock(slack().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        // Let the watchdog find out (renewal must not revive or extend the new holder's lock).
        Thread.sleep(watchdogTimeout().toMillis());
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThat(other.isHeldByCurrentThread()).isTrue();
        assertThat(other.isLocked()).isTrue();
        other.unlock();
        assertThat(other.isLocked()).isFalse();
    }

    /**
     * The same thread re-locks with a short fixed lease right after unlocking a watchdog hold, at several offsets
     * within the renewal period: a renewal of the old hold that was in flight (or scheduled) when it was unlocked
     * must not extend the new hold — which has the same thread owner — beyond its fixed lease.
     */
    @Test
    void aRenewalNeverOutlivesUnlock() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        DistributedLock other = openClient().lock(name);
        long renewal = watchdogTimeout().toMillis() / 3;
        Duration fixed = Duration.ofMillis(150);
        List<Long> freedAfter = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            lock.lock();
            Thread.sleep(renewal + round * renewal / 5);
            lock.unlock();
            lock.lock(fixed);
            long lockedAt = System.nanoTime();
            assertThat(other.tryLock(watchdogTimeout().plus(slack()).toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            freedAfter.add(millisSince(lockedAt));
            other.unlock();
            assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        }
        // A stale renewal would have pushed the expiry to a whole watchdog timeout (1 s by default).
        assertThat(freedAfter).as("ms until each %d ms fixed lease was free", fixed.toMillis())
                .allMatch(ms -> ms < fixed.toMillis() + (watchdogTimeout().toMillis() - fixed.toMillis()) * 3 / 4);
    }

    @Test
    void forceUnlockOfAFreeLockReportsFalse() {
        DistributedLock lock = client().lock(newName());
        assertThat(lock.forceUnlock()).isFalse();
        lock.lock();
        assertThat(lock.forceUnlock()).isTrue();
        assertThat(lock.isLocked()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
    }

    @Test
    void onLostNeverRunsAfterARelease() throws Exception {
        String name = newName();
        Duration leaseTime = Duration.ofSeconds(1);
        LockLease lease = client().lock(name).acquire(leaseTime);
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        lease.release();
        Thread.sleep(leaseTime.toMillis() + 100);
        lease.onLost(lost::incrementAndGet);
        assertThat(lost).hasValue(0);
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void fencingTokensIncreaseAcrossClientsAndApis() throws Exception {
        String name = newName();
        List<LockClient> clients = List.of(client(), openClient(), openClient());
        List<Long> tokens = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            for (LockClient c : clients) {
                DistributedLock lock = c.lock(name);
                lock.lock();
                tokens.add(lock.fencingToken().getAsLong());
                lock.unlock();
                try (LockLease lease = lock.acquire()) {
                    tokens.add(lease.fencingToken());
                }
                try (LockLease lease = lock.acquire(Duration.ofSeconds(10))) {
                    tokens.add(lease.fencingToken());
                }
            }
        }
        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void fencingTokensIncreaseAcrossAClientRestart() throws Exception {
        String name = newName();
        LockClient first = openClient();
        long before;
        try (LockLease lease = first.lock(name).acquire()) {
            before = lease.fencingToken();
        }
        first.close();
        LockClient restarted = openClient();
        try (LockLease lease = restarted.lock(name).acquire()) {
            assertThat(lease.fencingToken()).isGreaterThan(before);
        }
    }

    @Test
    void fencingTokensAreIndependentOfOtherNamesButNeverReused() throws Exception {
        DistributedLock a = client().lock(newName());
        DistributedLock b = client().lock(newName());
        long previous = Long.MIN_VALUE;
        for (int i = 0; i < 5; i++) {
            try (LockLease lease = b.acquire()) {
                lease.fencingToken();
            }
            try (LockLease lease = a.acquire()) {
                assertThat(lease.fencingToken()).isGreaterThan(previous);
                previous = lease.fencingToken();
            }
        }
    }

    @Test
    void tokenAfterExpiryIsGreater() throws Exception {
        String name = newName();
        LockLease expired = client().lock(name).acquire(SHORT_LEASE);
        Optional<LockLease> next = openClient().lock(name).tryAcquire(SHORT_LEASE.plus(slack()));
        assertThat(next).isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(expired.fencingToken());
        next.get().release();
    }

    @Test
    void closingAClientMakesItsLeasesLostAndTheLockExpires() throws Exception {
        String name = newName();
        LockClient closing = openClient();
        LockLease lease = closing.lock(name).acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        closing.close();
        assertThat(lease.isValid()).as("a lease of a closed client").isFalse();
        await().atMost(slack()).untilAsserted(() -> assertThat(lost).hasValue(1));
        Optional<LockLease> next = openClient().lock(name).tryAcquire(watchdogTimeout().plus(slack()));
        assertThat(next).as("the closed client's lock frees itself within the watchdog timeout").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(lease.fencingToken());
        next.get().release();
    }

    @Test
    void closingAClientWakesItsWaitersWithAnException() throws Exception {
        String name = newName();
        LockLease holder = client().lock(name).acquire();
        LockClient closing = openClient();
        Forked<Object> threadWaiter = fork("thread-waiter", () -> {
            closing.lock(name).lock();
            return "acquired";
        });
        Forked<Object> leaseWaiter = fork("lease-waiter", () -> closing.lock(name).acquire());
        var asyncWaiter = closing.lock(name).acquireAsync();
        await().atMost(slack()).until(() -> threadWaiter.isBlocked() && leaseWaiter.isBlocked());
        closing.close();
        assertThat(threadWaiter.failure(slack())).isInstanceOf(RuntimeException.class);
        assertThat(leaseWaiter.failure(slack())).isInstanceOf(RuntimeException.class);
        AtomicReference<Throwable> asyncFailure = new AtomicReference<>();
        await().atMost(slack()).until(asyncWaiter::isDone);
        asyncWaiter.whenComplete((lease, error) -> asyncFailure.set(error));
        assertThat(asyncFailure.get()).as("acquireAsync of a closing client fails").isNotNull();
        assertThat(holder.isValid()).isTrue();
        holder.release();
        assertThat(client().lock(name).isLocked()).as("no waiter of the closed client took the lock").isFalse();
    }
}
