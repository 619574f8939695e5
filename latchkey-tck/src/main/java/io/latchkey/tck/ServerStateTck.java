package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Capability;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a backend leaves on its server, and what its fencing tokens survive:
 * <ul>
 *   <li><b>No residue per name</b>: after many distinct names were locked and released, the server holds no more
 *       state than before (bounded by what is held, never by the names ever used).</li>
 *   <li><b>Tokens never repeat</b>: a name's fencing token after the server lost its data (restarted without
 *       persistence, failed over without acknowledgement, or the backend's rows were deleted) is still greater than
 *       every token it issued before.</li>
 * </ul>
 *
 * <p>A backend's test class implements {@link #serverObjects()} (keys, rows, znodes or etcd keys under the test
 * clients' namespace, counted by a direct server query, not through the library) and
 * {@link #loseServerData()}.
 */
public abstract class ServerStateTck extends TckBase {

    /**
     * How many objects (keys, rows, znodes, etcd keys …) the backend's server holds for the test clients now,
     * counted by a direct query of the server. Bounded per-namespace bookkeeping (such as a fixed set of token
     * counters) may be counted; the tests compare before and after.
     */
    protected abstract long serverObjects() throws Exception;

    /**
     * Makes the server forget its data as a real fault would: restart it without persistence, fail over to a replica
     * that never saw the last writes, or delete the backend's rows/keys. The clients stay open and must work again
     * afterwards (they may reconnect).
     */
    protected abstract void loseServerData() throws Exception;

    /**
     * Called before a test writes what {@link #loseServerData()} will then lose: for a fault that needs setting up
     * first, such as cutting a replica off so that a later failover promotes a replica that never saw the writes.
     * Does nothing by default.
     */
    protected void prepareToLoseServerData() throws Exception {
    }

    /**
     * How many distinct names {@link #distinctNamesLeaveNoResidue} locks and releases. Small enough for a 2-core CI
     * machine; large enough that per-name residue could not hide in the allowance.
     */
    protected int distinctNames() {
        return 200;
    }

    /**
     * How many server objects the test tolerates beyond the count before, for bounded bookkeeping created on first
     * use (a per-namespace or per-slot token counter). Never proportional to {@link #distinctNames()}.
     */
    protected long boundedBookkeeping() {
        return 2;
    }

    @Test
    void distinctNamesLeaveNoResidue() throws Exception {
        long before = serverObjects();
        for (int i = 0; i < distinctNames(); i++) {
            DistributedLock lock = client().lock(newName());
            lock.lock();
            lock.unlock();
            try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
                assertThat(lease.fencingToken()).isPositive();
            }
        }
        long after = serverObjects();
        assertThat(after - before)
                .as("server objects left after %d names were locked and released (%d before, %d after)",
                        distinctNames(), before, after)
                .isLessThanOrEqualTo(boundedBookkeeping());
    }

    @Test
    void everyPrimitiveLeavesNoResidueOnceFree() throws Exception {
        long before = serverObjects();
        for (int i = 0; i < 20; i++) {
            if (has(Capability.FAIR_LOCK)) {
                DistributedLock fair = client().fairLock(newName());
                fair.lock();
                fair.unlock();
            }
            if (has(Capability.READ_WRITE_LOCK)) {
                var rw = client().readWriteLock(newName());
                rw.readLock().lock();
                rw.readLock().unlock();
                rw.writeLock().lock();
                rw.writeLock().unlock();
            }
        }
        long after = serverObjects();
        assertThat(after - before)
                .as("server objects left by free fair and read-write locks (%d before, %d after)", before, after)
                .isLessThanOrEqualTo(boundedBookkeeping());
    }

    @Test
    void queuesAndLatchesLeaveNoResidueOnceEmpty() throws Exception {
        long before = serverObjects();
        if (has(Capability.FAIR_LOCK)) {
            // A waiter that gives up and one that gets the lock: the queue empties both ways.
            DistributedLock fair = client().fairLock(newName());
            DistributedLock other = openClient().fairLock(fair.name());
            try (LockLease held = fair.acquire(Duration.ofSeconds(30))) {
                assertThat(other.tryAcquire(Duration.ofMillis(200), Duration.ofSeconds(30))).isEmpty();
                Forked<Long> waiter = fork("fair-waiter", () -> {
                    try (LockLease lease = other.acquire(Duration.ofSeconds(30))) {
                        return lease.fencingToken();
                    }
                });
                awaitBlocked(waiter);
                held.release();
                assertThat(waiter.result().get(slack().toMillis(), TimeUnit.MILLISECONDS))
                        .isGreaterThan(held.fencingToken());
            }
        }
        if (has(Capability.READ_WRITE_LOCK)) {
            // A writer waiting behind a reader (with writer preference: an intent), then both released.
            var rw = client().readWriteLock(newName());
            var otherRw = openClient().readWriteLock(rw.writeLock().name());
            try (LockLease read = rw.readLock().acquire(Duration.ofSeconds(30))) {
                Forked<Long> writer = fork("rw-writer", () -> {
                    try (LockLease lease = otherRw.writeLock().acquire(Duration.ofSeconds(30))) {
                        return lease.fencingToken();
                    }
                });
                awaitBlocked(writer);
                read.release();
                assertThat(writer.result().get(slack().toMillis(), TimeUnit.MILLISECONDS))
                        .isGreaterThan(read.fencingToken());
            }
        }
        if (has(Capability.COUNT_DOWN_LATCH)) {
            DistributedCountDownLatch latch = client().countDownLatch(newName());
            assertThat(latch.trySetCount(2)).isTrue();
            latch.countDown();
            latch.countDown();
            assertThat(latch.await(slack())).isTrue();
        }
        long after = serverObjects();
        assertThat(after - before)
                .as("server objects left by emptied fair-lock queues, read-write locks and opened latches "
                        + "(%d before, %d after)", before, after)
                .isLessThanOrEqualTo(boundedBookkeeping());
    }

    @Test
    void tokensKeepIncreasingAfterTheServerLostItsData() throws Exception {
        prepareToLoseServerData();
        String name = newName();
        DistributedLock lock = client().lock(name);
        long last = 0;
        List<Long> before = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
                before.add(lease.fencingToken());
                last = Math.max(last, lease.fencingToken());
            }
        }
        loseServerData();
        long after = acquireOnceAfterRecovery(lock);
        assertThat(after).as("token after the server lost its data; tokens before: %s", before).isGreaterThan(last);
    }

    @Test
    void everyLockKindsTokenKeepsIncreasingAfterTheServerLostItsData() throws Exception {
        prepareToLoseServerData();
        List<DistributedLock> locks = new ArrayList<>();
        locks.add(client().lock(newName()));
        if (has(Capability.FAIR_LOCK)) {
            locks.add(client().fairLock(newName()));
        }
        if (has(Capability.READ_WRITE_LOCK)) {
            locks.add(client().readWriteLock(newName()).writeLock());
            locks.add(client().readWriteLock(newName()).readLock());
        }
        long[] last = new long[locks.size()];
        for (int i = 0; i < locks.size(); i++) {
            for (int round = 0; round < 3; round++) {
                try (LockLease lease = locks.get(i).acquire(Duration.ofSeconds(30))) {
                    last[i] = Math.max(last[i], lease.fencingToken());
                }
            }
        }
        loseServerData();
        for (int i = 0; i < locks.size(); i++) {
            long after = acquireOnceAfterRecovery(locks.get(i));
            assertThat(after).as("token of %s after the server lost its data", locks.get(i).name())
                    .isGreaterThan(last[i]);
        }
    }

    /** Acquires and releases once, retrying while the clients reconnect; returns the token. */
    private long acquireOnceAfterRecovery(DistributedLock lock) throws Exception {
        long deadline = System.nanoTime() + slack().multipliedBy(2).toNanos();
        while (true) {
            try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
                return lease.fencingToken();
            } catch (io.latchkey.LockUnavailableException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private boolean has(Capability capability) {
        return client().capabilities().contains(capability);
    }
}
