package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The thread-owned API of {@link DistributedLock} ({@link java.util.concurrent.locks.Lock} semantics): ownership,
 * reentrancy and hold counts, exclusion across threads and clients, waiting and waking, {@code tryLock} timing,
 * and interruption.
 */
public abstract class LockContractTck extends TckBase {

    @Test
    void lockAndUnlockReportOwnershipAndState() {
        DistributedLock lock = client().lock(newName());
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.fencingToken()).isEmpty();

        lock.lock();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        assertThat(lock.fencingToken()).isPresent();

        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.fencingToken()).isEmpty();
    }

    @Test
    void viewsOfOneNameShareState() {
        String name = newName();
        DistributedLock first = client().lock(name);
        DistributedLock second = client().lock(name);
        assertThat(first.name()).isEqualTo(name);

        first.lock();
        try {
            assertThat(second.isHeldByCurrentThread()).isTrue();
            assertThat(second.getHoldCount()).isEqualTo(1);
            assertThat(second.fencingToken()).isEqualTo(first.fencingToken());
        } finally {
            second.unlock();
        }
        assertThat(first.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void reentrantAcquiresCountHoldsAndKeepTheToken() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        DistributedLock other = openClient().lock(name);

        lock.lock();
        long token = lock.fencingToken().getAsLong();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(1, TimeUnit.SECONDS)).isTrue();
        lock.lockInterruptibly();
        assertThat(lock.getHoldCount()).isEqualTo(4);
        assertThat(lock.fencingToken()).hasValue(token);

        for (int holds = 3; holds >= 1; holds--) {
            lock.unlock();
            assertThat(lock.getHoldCount()).isEqualTo(holds);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.fencingToken()).hasValue(token);
            assertThat(other.tryLock()).as("another client while %d holds remain", holds).isFalse();
        }
        lock.unlock();
        assertThat(lock.getHoldCount()).isZero();
        assertThat(other.tryLock()).isTrue();
        other.unlock();
    }

    @Test
    void reentrantFixedLeaseAcquireKeepsTheToken() throws Exception {
        DistributedLock lock = client().lock(newName());
        lock.lock(Duration.ofSeconds(30));
        long token = lock.fencingToken().getAsLong();
        lock.lock(Duration.ofSeconds(30));
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofSeconds(30))).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        assertThat(lock.fencingToken()).hasValue(token);
        lock.unlock();
        lock.unlock();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void anotherThreadOfTheSameClientIsExcluded() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        lock.lock();
        try {
            Forked<Boolean> attempt = fork("other", () -> client().lock(name).tryLock());
            assertThat(attempt.get(slack())).isFalse();
            Forked<Boolean> held = fork("held", () -> client().lock(name).isHeldByCurrentThread());
            assertThat(held.get(slack())).isFalse();
            Forked<Integer> count = fork("count", () -> client().lock(name).getHoldCount());
            assertThat(count.get(slack())).isZero();
            Forked<OptionalLong> token = fork("token", () -> client().lock(name).fencingToken());
            assertThat(token.get(slack())).isEmpty();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void anotherClientIsExcluded() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        DistributedLock other = openClient().lock(name);
        lock.lock();
        try {
            assertThat(other.isLocked()).isTrue();
            assertThat(other.isHeldByCurrentThread()).isFalse();
            assertThat(other.tryLock()).isFalse();
            assertThat(other.tryLock(Duration.ZERO, Duration.ofSeconds(5))).isFalse();
        } finally {
            lock.unlock();
        }
        assertThat(other.tryLock()).isTrue();
        other.unlock();
    }

    @Test
    void unlockByAnotherThreadThrowsAndTheLockStaysHeld() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        lock.lock();
        try {
            Forked<Object> stranger = fork("stranger", () -> {
                client().lock(name).unlock();
                return "unlocked";
            });
            assertThat(stranger.failure(slack())).isInstanceOf(IllegalMonitorStateException.class)
                    .isNotInstanceOf(LockLostException.class);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(lock.getHoldCount()).isEqualTo(1);
            assertThat(openClient().lock(name).tryLock()).isFalse();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void unlockByAnotherClientThrowsAndTheLockStaysHeld() {
        String name = newName();
        DistributedLock lock = client().lock(name);
        DistributedLock other = openClient().lock(name);
        lock.lock();
        try {
            assertThatThrownBy(other::unlock).isInstanceOf(IllegalMonitorStateException.class)
                    .isNotInstanceOf(LockLostException.class);
            assertThat(lock.isHeldByCurrentThread()).isTrue();
            assertThat(other.isLocked()).isTrue();
        } finally {
            lock.unlock();
        }
    }

    @Test
    void unlockOfAFreeLockThrows() {
        DistributedLock lock = client().lock(newName());
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .isNotInstanceOf(LockLostException.class);
        lock.lock();
        lock.unlock();
        assertThatThrownBy(lock::unlock).as("one unlock too many").isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void lockWaitsUntilAnotherClientUnlocks() throws Exception {
        String name = newName();
        DistributedLock holder = client().lock(name);
        holder.lock();
        long holderToken = holder.fencingToken().getAsLong();
        LockClient other = openClient();
        Forked<Long> waiter = fork("waiter", () -> {
            DistributedLock lock = other.lock(name);
            lock.lock();
            try {
                return lock.fencingToken().getAsLong();
            } finally {
                lock.unlock();
            }
        });
        awaitBlocked(waiter);
        Thread.sleep(100);
        assertThat(waiter.isDone()).as("waiter acquired a held lock").isFalse();

        long releasedAt = System.nanoTime();
        holder.unlock();
        long waiterToken = waiter.get(slack());
        assertThat(millisSince(releasedAt)).as("ms from unlock to the waiter's acquire")
                .isLessThan(slack().toMillis());
        assertThat(waiterToken).isGreaterThan(holderToken);
    }

    @Test
    void lockWaitsUntilAnotherThreadOfTheSameClientUnlocks() throws Exception {
        String name = newName();
        DistributedLock holder = client().lock(name);
        holder.lock();
        long holderToken = holder.fencingToken().getAsLong();
        Forked<Long> waiter = fork("waiter", () -> {
            DistributedLock lock = client().lock(name);
            lock.lock();
            try {
                return lock.fencingToken().getAsLong();
            } finally {
                lock.unlock();
            }
        });
        awaitBlocked(waiter);
        assertThat(waiter.isDone()).isFalse();
        holder.unlock();
        assertThat(waiter.get(slack())).as("a new hold gets a new token").isGreaterThan(holderToken);
        assertThat(holder.isLocked()).isFalse();
    }

    /**
     * A timed {@code tryLock(200 ms)} on a lock another client holds returns {@code false} after its wait time plus at
     * most the one attempt that was out: five tries, each no shorter than the wait, their median under 450 ms (every
     * one within the wait plus {@link #slack()}, which absorbs a stalled test machine).
     */
    @Test
    void aTimedTryLockOnAHeldLockReturnsFalseWithinItsWaitPlusOneAttempt() throws Exception {
        String name = newName();
        DistributedLock holder = client().lock(name);
        DistributedLock other = openClient().lock(name);
        holder.lock();
        try {
            long[] took = new long[5];
            for (int i = 0; i < took.length; i++) {
                long start = System.nanoTime();
                assertThat(other.tryLock(200, TimeUnit.MILLISECONDS)).as("tryLock(200 ms) on a held lock").isFalse();
                took[i] = millisSince(start);
                assertThat(took[i]).as("ms tryLock(200 ms) took").isGreaterThanOrEqualTo(195)
                        .isLessThan(200 + slack().toMillis());
            }
            long[] sorted = took.clone();
            java.util.Arrays.sort(sorted);
            assertThat(sorted[sorted.length / 2]).as("median ms of tryLock(200 ms) on a held lock, tries %s",
                    java.util.Arrays.toString(took)).isLessThan(450);
        } finally {
            holder.unlock();
        }
    }

    @Test
    void tryLockGivesUpAfterAboutTheWaitTime() throws Exception {
        String name = newName();
        DistributedLock holder = client().lock(name);
        DistributedLock other = openClient().lock(name);
        holder.lock();
        try {
            long wait = 300;
            long start = System.nanoTime();
            assertThat(other.tryLock(wait, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(millisSince(start)).as("ms tryLock(300 ms) waited")
                    .isGreaterThanOrEqualTo(wait - 10).isLessThan(wait + slack().toMillis());

            start = System.nanoTime();
            assertThat(other.tryLock(Duration.ofMillis(wait), Duration.ofSeconds(10))).isFalse();
            assertThat(millisSince(start)).as("ms tryLock(300 ms, lease) waited")
                    .isGreaterThanOrEqualTo(wait - 10).isLessThan(wait + slack().toMillis());

            start = System.nanoTime();
            assertThat(other.tryLock()).isFalse();
            assertThat(millisSince(start)).as("ms tryLock() took").isLessThan(slack().toMillis());
        } finally {
            holder.unlock();
        }
        assertThat(other.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void tryLockSucceedsWhenTheLockIsReleasedDuringTheWait() throws Exception {
        String name = newName();
        DistributedLock holder = client().lock(name);
        holder.lock();
        LockClient other = openClient();
        Forked<Boolean> waiter = fork("waiter", () -> {
            DistributedLock lock = other.lock(name);
            if (!lock.tryLock(20, TimeUnit.SECONDS)) {
                return false;
            }
            lock.unlock();
            return true;
        });
        awaitBlocked(waiter);
        long start = System.nanoTime();
        holder.unlock();
        assertThat(waiter.get(slack())).isTrue();
        assertThat(millisSince(start)).as("ms from unlock to the waiter's acquire").isLessThan(slack().toMillis());
    }

    @Test
    void interruptedLockInterruptiblyThrowsAndLeavesNoLock() throws Exception {
        assertInterruptedWaitLeavesNoLock(lock -> {
            lock.lockInterruptibly();
            return "acquired";
        });
    }

    @Test
    void interruptedTryLockThrowsAndLeavesNoLock() throws Exception {
        assertInterruptedWaitLeavesNoLock(lock -> "acquired=" + lock.tryLock(30, TimeUnit.SECONDS));
    }

    @Test
    void interruptedTryLockWithLeaseThrowsAndLeavesNoLock() throws Exception {
        assertInterruptedWaitLeavesNoLock(
                lock -> "acquired=" + lock.tryLock(Duration.ofSeconds(30), Duration.ofSeconds(30)));
    }

    /** Interrupting right as the lock frees up: the waiter either owns the lock or throws and left nothing. */
    @Test
    void interruptRacingWithAGrantLeavesNoLock() throws Exception {
        String name = newName();
        DistributedLock holder = client().lock(name);
        LockClient waiterClient = openClient();
        DistributedLock probe = openClient().lock(name);
        for (int round = 0; round < 10; round++) {
            holder.lock();
            Forked<String> waiter = fork("racer-" + round, () -> {
                DistributedLock lock = waiterClient.lock(name);
                try {
                    lock.lockInterruptibly();
                } catch (InterruptedException e) {
                    return lock.isHeldByCurrentThread() ? "held after InterruptedException" : "interrupted";
                }
                boolean held = lock.isHeldByCurrentThread();
                lock.unlock();
                return held ? "acquired" : "returned without holding";
            });
            awaitBlocked(waiter);
            holder.unlock();
            if (round % 2 == 1) {
                Thread.sleep(1);
            }
            waiter.thread().interrupt();
            assertThat(waiter.get(slack())).isIn("interrupted", "acquired");
            assertThat(probe.tryLock(300, TimeUnit.MILLISECONDS)).as("round %d: free afterwards", round).isTrue();
            probe.unlock();
        }
    }

    /** As for JUC locks, an interruptible acquire by an already interrupted thread throws at once. */
    @Test
    void interruptibleAcquireByAnInterruptedThreadThrowsEvenWhenFree() throws Exception {
        String name = newName();
        Forked<Object> caller = fork("interrupted", () -> {
            DistributedLock lock = client().lock(name);
            Thread.currentThread().interrupt();
            try {
                lock.lockInterruptibly();
                return "acquired, holds=" + lock.getHoldCount();
            } catch (InterruptedException e) {
                return lock.isHeldByCurrentThread() ? "held after InterruptedException" : e;
            }
        });
        assertThat(caller.get(slack())).isInstanceOf(InterruptedException.class);
        assertThat(client().lock(name).isLocked()).isFalse();
    }

    /** As for JUC locks, {@code lock()} ignores interrupts while waiting and keeps the interrupt flag set. */
    @Test
    void lockIsUninterruptibleAndKeepsTheInterruptFlag() throws Exception {
        String name = newName();
        DistributedLock holder = client().lock(name);
        holder.lock();
        LockClient other = openClient();
        Forked<Boolean> waiter = fork("uninterruptible", () -> {
            DistributedLock lock = other.lock(name);
            lock.lock();
            boolean interrupted = Thread.interrupted();
            lock.unlock();
            return interrupted;
        });
        awaitBlocked(waiter);
        waiter.thread().interrupt();
        Thread.sleep(200);
        assertThat(waiter.isDone()).as("lock() returned or threw when interrupted").isFalse();
        holder.unlock();
        assertThat(waiter.get(slack())).as("interrupt flag still set after lock()").isTrue();
    }

    @FunctionalInterface
    protected interface LockAttempt {
        Object run(DistributedLock lock) throws Exception;
    }

    /**
     * Whether this backend records who holds a lock ({@link DistributedLock#holder()}). Only recipes that block
     * inside the server (the SQL advisory locks) answer empty.
     */
    protected boolean recordsHolder() {
        return true;
    }

    @Test
    void holderNamesTheOtherClientWithItsTokenAndLease() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        assertThat(lock.holder()).as("a free lock has no holder").isEmpty();
        LockClient worker = openClient(options().toBuilder().clientName("worker-7").build());
        java.time.Instant before = java.time.Instant.now();
        io.latchkey.LockLease lease = worker.lock(name).acquire(Duration.ofSeconds(20));
        try {
            java.util.Optional<io.latchkey.LockHolder> holder = lock.holder();
            if (!recordsHolder()) {
                assertThat(holder).isEmpty();
                return;
            }
            assertThat(holder).as("holder of a held lock").isPresent();
            io.latchkey.LockHolder h = holder.get();
            assertThat(h.clientName()).isEqualTo("worker-7");
            assertThat(h.owner()).startsWith(worker.clientId());
            assertThat(h.fencingToken()).hasValue(lease.fencingToken());
            h.leaseLeft().ifPresent(left -> assertThat(left)
                    .isPositive().isLessThanOrEqualTo(Duration.ofSeconds(20)));
            // server time where the backend has it: allow for clock skew between this machine and the server
            h.heldSince().ifPresent(since -> assertThat(since)
                    .isBetween(before.minusSeconds(60), java.time.Instant.now().plusSeconds(60)));
            assertThat(h.toString()).contains("worker-7");
        } finally {
            lease.release();
        }
        assertThat(lock.holder()).as("released: no holder").isEmpty();
    }

    @Test
    void holderOfAThreadOwnedLockByDefaultNamesThisHostAndProcess() throws Exception {
        Assumptions.assumeTrue(recordsHolder(), "the backend does not record holders");
        String name = newName();
        DistributedLock mine = client().lock(name);
        mine.lock();
        try {
            io.latchkey.LockHolder h = openClient().lock(name).holder().orElseThrow();
            assertThat(h.clientName()).isEqualTo(options().clientName())
                    .endsWith(":" + ProcessHandle.current().pid());
            assertThat(h.fencingToken()).isEqualTo(mine.fencingToken());
        } finally {
            mine.unlock();
        }
    }

    @Test
    void holderOfAFairLockAndOfAWriteLockNamesTheClient() throws Exception {
        Assumptions.assumeTrue(recordsHolder(), "the backend does not record holders");
        LockClient worker = openClient(options().toBuilder().clientName("worker-7").build());
        java.util.Set<io.latchkey.Capability> capabilities = client().capabilities();
        if (capabilities.contains(io.latchkey.Capability.FAIR_LOCK)) {
            String name = newName();
            io.latchkey.LockLease lease = worker.fairLock(name).acquire(Duration.ofSeconds(20));
            try {
                assertThat(client().fairLock(name).holder()).as("fair lock").hasValueSatisfying(h -> {
                    assertThat(h.clientName()).isEqualTo("worker-7");
                    assertThat(h.fencingToken()).hasValue(lease.fencingToken());
                });
            } finally {
                lease.release();
            }
            assertThat(client().fairLock(name).holder()).isEmpty();
        }
        if (capabilities.contains(io.latchkey.Capability.READ_WRITE_LOCK)) {
            String name = newName();
            io.latchkey.LockLease lease = worker.readWriteLock(name).writeLock().acquire(Duration.ofSeconds(20));
            try {
                assertThat(client().readWriteLock(name).writeLock().holder()).as("write lock").hasValueSatisfying(h -> {
                    assertThat(h.clientName()).isEqualTo("worker-7");
                    assertThat(h.fencingToken()).hasValue(lease.fencingToken());
                });
            } finally {
                lease.release();
            }
            assertThat(client().readWriteLock(name).writeLock().holder()).isEmpty();
        }
    }

    @Test
    void timedOutWaitTellsTheListenerWhoHeldTheLock() throws Exception {
        Assumptions.assumeTrue(recordsHolder(), "the backend does not record holders");
        String name = newName();
        LockClient worker = openClient(options().toBuilder().clientName("worker-7").build());
        io.latchkey.LockLease lease = worker.lock(name).acquire();
        try {
            java.util.concurrent.CompletableFuture<io.latchkey.LockHolder> told =
                    new java.util.concurrent.CompletableFuture<>();
            LockClient waiter = openClient(options().toBuilder().eventListener(new io.latchkey.LockEventListener() {
                @Override
                public void timedOutHeldBy(String lockName, Duration waited, io.latchkey.LockHolder holder) {
                    told.complete(holder);
                }
            }).build());
            assertThat(waiter.lock(name).tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
            io.latchkey.LockHolder h = told.get(slack().toMillis(), TimeUnit.MILLISECONDS);
            assertThat(h.clientName()).isEqualTo("worker-7");
            assertThat(h.fencingToken()).hasValue(lease.fencingToken());
        } finally {
            lease.release();
        }
    }

    private void assertInterruptedWaitLeavesNoLock(LockAttempt attempt) throws Exception {
        String name = newName();
        DistributedLock holder = client().lock(name);
        holder.lock();
        LockClient waiterClient = openClient();
        Forked<Object> waiter = fork("waiter", () -> {
            DistributedLock lock = waiterClient.lock(name);
            try {
                return attempt.run(lock);
            } catch (InterruptedException e) {
                if (lock.isHeldByCurrentThread()) {
                    return "held the lock after InterruptedException";
                }
                return e;
            }
        });
        awaitBlocked(waiter);
        Thread.sleep(50);
        waiter.thread().interrupt();
        assertThat(waiter.get(slack())).isInstanceOf(InterruptedException.class);

        holder.unlock();
        // Shorter than the watchdog timeout, so that a lock left behind and merely expiring is still caught.
        DistributedLock third = openClient().lock(name);
        assertThat(third.tryLock(200, TimeUnit.MILLISECONDS)).as("free right after the holder's unlock").isTrue();
        third.unlock();
        assertThat(waiterClient.lock(name).tryLock()).as("the interrupted client can lock again").isTrue();
        waiterClient.lock(name).unlock();
    }
}
