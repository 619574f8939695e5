package io.latchkey.core.combinator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.latchkey.Locks;
import io.latchkey.RedLock;
import io.latchkey.RedLockLease;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RedLock on five independent in-memory servers. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RedLockTest {

    private static final int N = 5;
    private static final String NAME = "resource";

    private final MemServers servers = new MemServers();
    /** The RedLock's own clients, one per server. */
    private final List<LockClient> mine = servers.clients(N);
    /** Other clients of the same servers, to look at and to compete. */
    private final List<LockClient> others = servers.clients(N);
    private final Set<Integer> down = new HashSet<>();

    @AfterEach
    void closeClients() {
        servers.close();
    }

    private RedLock redLock() {
        return Locks.redLock(MemServers.locks(mine, NAME));
    }

    /** How many of the available servers have {@link #NAME} locked, asked through the other clients. */
    private int lockedServers() {
        int locked = 0;
        for (int i = 0; i < N; i++) {
            if (!down.contains(i) && others.get(i).lock(NAME).isLocked()) {
                locked++;
            }
        }
        return locked;
    }

    /** Takes server {@code i} down: every operation on it fails with {@link LockUnavailableException}. */
    private void makeUnavailable(int server) {
        ((MemLockClient) mine.get(server)).setServerAvailable(false);
        down.add(server);
    }

    @AfterEach
    void bringServersBack() {
        for (int i : down) {
            ((MemLockClient) mine.get(i)).setServerAvailable(true);
        }
    }

    @Test
    void acquiresOnEveryServerAndReportsShrinkingValidity() throws InterruptedException {
        RedLock lock = redLock();
        Duration lease = Duration.ofSeconds(2);
        long before = System.nanoTime();
        RedLockLease held = lock.acquire(lease);
        long took = System.nanoTime() - before;

        assertThat(held.isValid()).isTrue();
        assertThat(held.heldParts()).isEqualTo(N);
        assertThat(held.lockName()).isEqualTo(NAME);
        assertThat(lockedServers()).isEqualTo(N);
        Duration drift = Duration.ofMillis(2).plus(lease.dividedBy(100));
        Duration first = held.validity();
        assertThat(first).isLessThanOrEqualTo(lease.minus(drift)).isGreaterThan(lease.minus(drift)
                .minusNanos(took).minusMillis(200));

        long t0 = System.nanoTime();
        await().pollInterval(Duration.ofMillis(5)).until(() -> System.nanoTime() - t0 > 30_000_000L);
        Duration later = held.validity();
        assertThat(later).isLessThanOrEqualTo(first.minusMillis(30));

        held.release();
        assertThat(held.validity()).isZero();
        assertThat(held.isValid()).isFalse();
        assertThat(lockedServers()).isZero();
    }

    @Test
    void succeedsWithTwoOfFiveServersUnavailable() throws InterruptedException {
        RedLock lock = redLock();
        makeUnavailable(1);
        makeUnavailable(3);

        Optional<LockLease> lease = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(2));

        assertThat(lease).isPresent();
        RedLockLease held = (RedLockLease) lease.get();
        assertThat(held.heldParts()).isEqualTo(3);
        assertThat(held.validity()).isPositive();
        assertThat(lockedServers()).isEqualTo(3);
        held.release();
        assertThat(lockedServers()).isZero();
    }

    @Test
    void failsWithThreeOfFiveUnavailableAndReleasesTheRest() {
        RedLock lock = redLock();
        makeUnavailable(0);
        makeUnavailable(2);
        makeUnavailable(4);

        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(200), Duration.ofSeconds(2)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("3 of 5 parts failed")
                .hasMessageContaining("quorum of 3");
        assertThat(lockedServers()).as("the two reachable servers were released").isZero();
    }

    @Test
    void doesNotWaitForSlowServersAndReleasesTheirLateAnswers() throws InterruptedException {
        List<DistributedLock> parts = MemServers.locks(mine, NAME);
        SlowPart slow0 = new SlowPart(parts.get(0), Duration.ofMillis(1500));
        SlowPart slow1 = new SlowPart(parts.get(1), Duration.ofMillis(1500));
        parts.set(0, slow0.lock);
        parts.set(1, slow1.lock);
        RedLock lock = Locks.redLock(Duration.ofMillis(50), parts);

        long start = System.nanoTime();
        RedLockLease held = lock.acquire(Duration.ofSeconds(5));
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1000));
        assertThat(held.heldParts()).isEqualTo(3);

        // the slow servers grant their parts later; those late parts are released at once
        await().atMost(Duration.ofSeconds(3)).until(() -> slow0.leases.size() == 1 && slow1.leases.size() == 1);
        await().atMost(Duration.ofSeconds(3)).until(() -> !slow0.leases.get(0).isValid()
                && !slow1.leases.get(0).isValid());
        await().atMost(Duration.ofSeconds(3)).until(() -> lockedServers() == 3);
        held.release();
        assertThat(lockedServers()).isZero();
    }

    @Test
    void failsWhenAMajorityIsTooSlowAndReleasesEverything() {
        List<DistributedLock> parts = MemServers.locks(mine, NAME);
        List<SlowPart> slow = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            slow.add(new SlowPart(parts.get(i), Duration.ofMillis(1000)));
            parts.set(i, slow.get(i).lock);
        }
        RedLock lock = Locks.redLock(Duration.ofMillis(50), parts);

        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(5)))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("no answer within 50 ms");
        assertThat(others.get(3).lock(NAME).isLocked()).as("fast parts are released before the acquire returns")
                .isFalse();
        assertThat(others.get(4).lock(NAME).isLocked()).isFalse();
        await().atMost(Duration.ofSeconds(3)).until(() -> slow.stream().allMatch(p -> p.leases.size() == 1));
        await().atMost(Duration.ofSeconds(3)).until(() -> lockedServers() == 0);
    }

    @Test
    void failsWhenAMajorityIsBusyAndReleasesTheMinorityItTook() throws InterruptedException {
        List<LockLease> competitor = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            competitor.add(others.get(i).lock(NAME).acquire());
        }
        RedLock lock = redLock();

        assertThat(lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(2))).isEmpty();
        assertThat(lock.tryAcquire(Duration.ofMillis(150), Duration.ofSeconds(2))).isEmpty();
        assertThat(lock.tryLock()).isFalse();
        assertThat(lockedServers()).as("only the competitor's three").isEqualTo(3);

        competitor.get(0).release();
        Optional<LockLease> lease = lock.tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(2));
        assertThat(lease).isPresent();
        assertThat(((RedLockLease) lease.get()).heldParts()).isEqualTo(3);
        lease.get().release();
        competitor.get(1).release();
        competitor.get(2).release();
    }

    @Test
    void twoRedLocksExcludeEachOther() throws InterruptedException {
        RedLock first = redLock();
        RedLock second = Locks.redLock(MemServers.locks(others, NAME));

        RedLockLease held = first.acquire(Duration.ofSeconds(5));
        assertThat(second.tryAcquire(Duration.ofMillis(100), Duration.ofSeconds(5))).isEmpty();
        held.release();
        Optional<LockLease> next = second.tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(5));
        assertThat(next).isPresent();
        next.get().release();
    }

    @Test
    void refusesALeaseThatCannotOutliveTheDrift() throws InterruptedException {
        // drift alone is 2 ms + 1 %: a 2 ms lease never has validity left
        RedLock lock = redLock();
        assertThat(lock.tryAcquire(Duration.ZERO, Duration.ofMillis(2))).isEmpty();
        await().atMost(Duration.ofSeconds(2)).until(() -> lockedServers() == 0);
    }

    @Test
    void fixedLeaseIsLostWhenItsValidityRunsOut() throws InterruptedException {
        RedLock lock = redLock();
        RedLockLease held = lock.acquire(Duration.ofMillis(200));
        AtomicBoolean told = new AtomicBoolean();
        held.onLost(() -> told.set(true));

        await().atMost(Duration.ofSeconds(3)).untilTrue(told);
        assertThat(held.isValid()).isFalse();
        assertThat(held.validity()).isZero();
        assertThatThrownBy(held::release).isInstanceOf(LockLostException.class)
                .hasMessageContaining("validity ran out");
    }

    @Test
    void watchdogLeaseSurvivesAMinorityLossAndIsLostWithTheQuorum() throws InterruptedException {
        RedLock lock = redLock();
        RedLockLease held = lock.acquire();
        AtomicBoolean told = new AtomicBoolean();
        held.onLost(() -> told.set(true));
        assertThat(held.validity()).isGreaterThan(Duration.ofDays(365));

        others.get(0).lock(NAME).forceUnlock();
        others.get(1).lock(NAME).forceUnlock();
        // well past a renewal round: the two lost parts are noticed, three remain
        long t0 = System.nanoTime();
        await().pollInterval(Duration.ofMillis(20))
                .until(() -> System.nanoTime() - t0 > MemServers.WATCHDOG.toNanos());
        assertThat(told).isFalse();
        assertThat(held.isValid()).isTrue();

        others.get(2).lock(NAME).forceUnlock();
        await().atMost(Duration.ofSeconds(5)).untilTrue(told);
        assertThat(held.isValid()).isFalse();
        assertThatThrownBy(held::release).isInstanceOf(LockLostException.class)
                .hasMessageContaining("fewer than the quorum of 3");
        assertThat(lockedServers()).isZero();
    }

    @Test
    void interruptionLeavesNothingHeld() throws Exception {
        // a competitor on three servers: every attempt takes the other two and gives them back
        List<LockLease> competitor = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            competitor.add(others.get(i).lock(NAME).acquire());
        }
        RedLock lock = redLock();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                lock.lockInterruptibly();
                outcome.set(new AssertionError("acquired"));
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "redlock-interrupted");
        waiter.start();
        await().pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(5)).until(() -> lockedServers() > 3);   // an attempt is under way
        waiter.interrupt();
        waiter.join(5000);

        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        for (LockLease l : competitor) {
            l.release();
        }
        assertThat(lockedServers()).isZero();
    }

    @Test
    void uninterruptibleLockKeepsWaitingAndRestoresTheInterrupt() throws Exception {
        List<LockLease> competitor = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            competitor.add(others.get(i).lock(NAME).acquire());
        }
        RedLock lock = redLock();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread waiter = new Thread(() -> {
            try {
                lock.lock();
                outcome.set(Thread.currentThread().isInterrupted());
                lock.unlock();
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "redlock-uninterruptible");
        waiter.start();
        await().pollInterval(Duration.ofMillis(5)).atMost(Duration.ofSeconds(5)).until(() -> lockedServers() > 3);
        waiter.interrupt();
        competitor.get(0).release();
        waiter.join(5000);

        assertThat(outcome.get()).isEqualTo(Boolean.TRUE);
        competitor.get(1).release();
        competitor.get(2).release();
        assertThat(lockedServers()).isZero();
    }

    @Test
    void threadOwnedIsReentrantPerInstance() throws InterruptedException {
        RedLock lock = redLock();
        assertThat(lock.quorum()).isEqualTo(3);
        assertThat(lock.validity()).isZero();

        lock.lock(Duration.ofSeconds(5));
        long token = lock.fencingToken().orElseThrow();
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(5))).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.fencingToken()).hasValue(token);
        assertThat(lock.validity()).isPositive();
        assertThat(lock.isLocked()).isTrue();

        AtomicReference<Throwable> byOtherThread = new AtomicReference<>();
        Thread other = new Thread(() -> {
            try {
                lock.unlock();
            } catch (Throwable e) {
                byOtherThread.set(e);
            }
        }, "redlock-non-owner");
        other.start();
        other.join();
        assertThat(byOtherThread.get()).isInstanceOf(IllegalMonitorStateException.class);

        lock.unlock();
        assertThat(lockedServers()).isEqualTo(N);
        lock.unlock();
        assertThat(lockedServers()).isZero();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining(NAME);
    }

    @Test
    void asyncAcquireReturnsARedLockLease() throws Exception {
        RedLock lock = redLock();
        Optional<LockLease> lease = lock.tryAcquireAsync(Duration.ZERO, Duration.ofSeconds(2)).get(5, TimeUnit.SECONDS);
        assertThat(lease).containsInstanceOf(RedLockLease.class);
        assertThat(((RedLockLease) lease.get()).validity()).isPositive();
        assertThat(lock.tryAcquireAsync(Duration.ofMillis(50), null).get(5, TimeUnit.SECONDS)).isEmpty();
        lease.get().releaseAsync().get(5, TimeUnit.SECONDS);
        LockLease watchdog = lock.acquireAsync().get(5, TimeUnit.SECONDS);
        assertThat(watchdog.isValid()).isTrue();
        watchdog.release();
        assertThat(lockedServers()).isZero();
    }

    @Test
    void aNodeTimeoutTooLongToRepresentMeansNoBoundAndANegativeWaitTriesOnce() throws Exception {
        RedLock lock = Locks.redLock(Duration.ofSeconds(Long.MAX_VALUE), MemServers.locks(mine, NAME));
        lock.tryAcquire(Duration.ofSeconds(-1), Duration.ofSeconds(30)).orElseThrow().release();
        assertThat(lock.tryLock(Duration.ofSeconds(-1), Duration.ofSeconds(30))).isTrue();
        lock.unlock();
    }

    @Test
    void checksItsArguments() {
        DistributedLock a = mine.get(0).lock(NAME);
        assertThatThrownBy(() -> Locks.redLock()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redLock needs at least one lock");
        assertThatThrownBy(() -> Locks.redLock(a, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("locks[1] is null");
        assertThatThrownBy(() -> Locks.redLock(a, a)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("same lock object");
        assertThatThrownBy(() -> Locks.redLock(Duration.ZERO, List.of(a)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nodeTimeout must be positive");
        assertThatThrownBy(() -> redLock().tryAcquire(Duration.ZERO, Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("leaseTime must be positive");
        assertThatThrownBy(() -> redLock().tryAcquire(Duration.ZERO, Duration.ofSeconds(Long.MAX_VALUE)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("MAX_LEASE_TIME");
        assertThat(Locks.redLock(a).quorum()).isEqualTo(1);
        assertThat(Locks.redLock(MemServers.locks(mine.subList(0, 2), NAME)).quorum()).isEqualTo(2);
        assertThat(Locks.redLock(MemServers.locks(mine.subList(0, 3), NAME)).quorum()).isEqualTo(2);
        assertThat(Locks.redLock(MemServers.locks(mine.subList(0, 4), NAME)).quorum()).isEqualTo(3);
    }
}
