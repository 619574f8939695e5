package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Loss signals, and that abandoning a wait (interrupt, cancelled future) never leaves a lock behind. */
class LossAndInterruptionTest {

    private final String server = CountingMemClient.newServer();
    private final CountingMemClient client = new CountingMemClient(server, CountingMemClient.shortWatchdog());
    private final MemLockClient other = MemLockClient.create(server, CountingMemClient.shortWatchdog());

    private static org.awaitility.core.ConditionFactory fastAwait() {
        return await().atMost(Duration.ofSeconds(3)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(2));
    }

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    @Test
    void nestedHoldLostIsReportedByEveryPendingUnlock() throws Exception {
        DistributedLock lock = client.lock("nested");
        lock.lock();
        lock.lock();
        assertThat(other.lock("nested").forceUnlock()).isTrue();
        await().atMost(Duration.ofSeconds(3)).pollInSameThread().until(() -> !lock.isHeldByCurrentThread());
        assertThat(lock.getHoldCount()).isZero();
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class).hasMessageContaining("nested");
        assertThatThrownBy(lock::unlock).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .isNotInstanceOf(LockLostException.class);
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        assertThat(client.engineForTest().localStateCount()).isZero();
    }

    @Test
    void leaseLostOnceAndReleaseThrows() throws Exception {
        LockLease lease = client.lock("lost").acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        other.lock("lost").forceUnlock();
        LockLease thief = other.lock("lost").acquire();
        await().atMost(Duration.ofSeconds(3)).until(() -> lost.get() == 1);
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        assertThatThrownBy(lease::close).isInstanceOf(LockLostException.class);
        assertThat(thief.isValid()).isTrue();
        assertThat(other.lock("lost").isLocked()).as("the clean-up did not free the new holder").isTrue();
        thief.release();
        thief.release(); // idempotent
        assertThat(lost).hasValue(1);
    }

    @Test
    void interruptedWaiterLeavesNoLock() throws Exception {
        DistributedLock held = other.lock("interrupt");
        held.lock();
        DistributedLock lock = client.lock("interrupt");
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                lock.lockInterruptibly();
                outcome.set(new AssertionError("acquired"));
            } catch (InterruptedException e) {
                outcome.set(e);
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(3)).until(() -> t.getState() == Thread.State.WAITING);
        t.interrupt();
        t.join(3000);
        assertThat(outcome.get()).isInstanceOf(InterruptedException.class);
        held.unlock();
        assertThat(held.isLocked()).isFalse();
        assertThat(client.engineForTest().localStateCount()).isZero();
    }

    @Test
    void interruptRacingTheGrantLeavesNoLock() throws Exception {
        DistributedLock held = other.lock("race");
        DistributedLock lock = client.lock("race");
        for (int i = 0; i < 100; i++) {
            held.lock();
            Thread t = new Thread(() -> {
                try {
                    if (lock.tryLock(Duration.ofSeconds(5), null)) {
                        lock.unlock();
                    }
                } catch (InterruptedException expected) {
                    // either outcome is fine; what matters is what is left behind
                }
            });
            t.start();
            fastAwait().until(() -> t.getState() == Thread.State.TIMED_WAITING
                    || t.getState() == Thread.State.WAITING);
            held.unlock();
            t.interrupt();
            t.join(3000);
            assertThat(t.isAlive()).isFalse();
            assertThat(held.isLocked()).as("round %d", i).isFalse();
        }
        await().atMost(Duration.ofSeconds(3)).until(() -> client.engineForTest().localStateCount() == 0);
    }

    @Test
    void cancelledAsyncAcquireLeavesNoLock() throws Exception {
        DistributedLock held = other.lock("cancel");
        DistributedLock lock = client.lock("cancel");
        held.lock();
        CompletableFuture<LockLease> waiting = lock.acquireAsync();
        CompletableFuture<Optional<LockLease>> bounded = lock.tryAcquireAsync(Duration.ofSeconds(10), null);
        assertThat(waiting.cancel(true)).isTrue();
        assertThat(bounded.cancel(true)).isTrue();
        held.unlock();
        assertThat(held.isLocked()).isFalse();
        // and racing the grant
        for (int i = 0; i < 100; i++) {
            held.lock();
            CompletableFuture<LockLease> f = lock.acquireAsync();
            held.unlock();
            if (!f.cancel(true)) {
                f.join().release();
            }
            fastAwait().until(() -> !held.isLocked());
        }
        await().atMost(Duration.ofSeconds(3)).until(() -> client.engineForTest().localStateCount() == 0);
    }

    @Test
    void asyncAcquireDoesNotParkAThreadPerWaiter() throws Exception {
        DistributedLock held = other.lock("async");
        held.lock();
        int threadsBefore = Thread.activeCount();
        java.util.List<CompletableFuture<LockLease>> waiting = new java.util.ArrayList<>();
        for (int i = 0; i < 200; i++) {
            waiting.add(client.lock("async").acquireAsync());
        }
        assertThat(Thread.activeCount()).isLessThan(threadsBefore + 5);
        assertThat(client.counting().acquires).as("one remote waiter").hasValue(1);
        held.unlock();
        for (CompletableFuture<LockLease> f : waiting) {
            f.get(5, java.util.concurrent.TimeUnit.SECONDS).release();
        }
        assertThat(held.isLocked()).isFalse();
    }
}
