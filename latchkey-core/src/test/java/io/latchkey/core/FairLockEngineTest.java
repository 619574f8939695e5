package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the engine sends for a fair lock: every waiter its own remote acquire from the moment it waits (even while
 * another thread of the same client holds the lock), no local queue, no hand-off; reentrancy still local.
 * {@link LocalWaitersAndHandOffTest} checks that the plain lock keeps one remote waiter and its hand-off.
 */
class FairLockEngineTest {

    private final String server = CountingMemClient.newServer();
    private final CountingMemClient client = new CountingMemClient(server, CountingMemClient.shortWatchdog());
    private final MemLockClient other = MemLockClient.create(server, CountingMemClient.shortWatchdog());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void everyWaiterOfTheHoldingClientWaitsRemotelyAndNothingIsHandedOff() throws Exception {
        DistributedLock lock = client.fairLock("own-waiters");
        lock.lock();
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        CountingOps ops = client.countingFair();
        int count = 6;
        for (int i = 0; i < count; i++) {
            int id = i;
            Thread t = new Thread(() -> {
                lock.lock();
                try {
                    order.add(id);
                } finally {
                    lock.unlock();
                }
            }, "fair-waiter-" + i);
            threads.add(t);
            t.start();
            // each one is at the server before the next starts: the server's queue then holds them in this order
            await().atMost(Duration.ofSeconds(5)).until(() -> ops.inFlightAcquires.get() == id + 1);
        }
        assertThat(ops.acquires).as("one remote acquire per waiter besides the holder's").hasValue(count + 1);
        lock.unlock();
        for (Thread t : threads) {
            t.join(5000);
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
        assertThat(ops.maxInFlightAcquires).hasValue(count);
        assertThat(ops.handOffs).hasValue(0);
        assertThat(ops.releases).as("every hold released at the server").hasValue(count + 1);
        assertThat(client.engineForTest().localStateCount()).isZero();
    }

    @Test
    void reentrantAcquiresOfAFairLockCostNoRoundTrip() throws Exception {
        DistributedLock lock = client.fairLock("fair-reentrant");
        lock.lock();
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(3);
        lock.unlock();
        lock.unlock();
        CountingOps ops = client.countingFair();
        assertThat(ops.acquires).hasValue(1);
        assertThat(ops.releases).hasValue(0);
        lock.unlock();
        assertThat(ops.releases).hasValue(1);
    }

    @Test
    void anInterruptedFairWaiterWithdrawsOnlyItsOwnRequest() throws Exception {
        DistributedLock held = other.fairLock("fair-interrupt");
        held.lock();
        DistributedLock lock = client.fairLock("fair-interrupt");
        CountingOps ops = client.countingFair();
        List<Thread> threads = new ArrayList<>();
        List<Throwable> outcomes = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int i = 0; i < 3; i++) {
            int id = i;
            Thread t = new Thread(() -> {
                try {
                    lock.lockInterruptibly();
                    lock.unlock();
                    outcomes.add(new AssertionError("ok " + id));
                } catch (InterruptedException e) {
                    outcomes.add(e);
                }
            }, "fair-interruptible-" + i);
            threads.add(t);
            t.start();
            await().atMost(Duration.ofSeconds(5)).until(() -> ops.inFlightAcquires.get() == id + 1);
        }
        threads.get(1).interrupt();
        threads.get(1).join(5000);
        assertThat(ops.inFlightAcquires).as("the others still wait at the server").hasValue(2);
        held.unlock();
        for (Thread t : threads) {
            t.join(5000);
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(outcomes).hasSize(3).filteredOn(e -> e instanceof InterruptedException).hasSize(1);
        assertThat(lock.isLocked()).isFalse();
        assertThat(client.engineForTest().localStateCount()).isZero();
    }
}
