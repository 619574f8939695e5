package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.core.internal.LockEngine;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reentrancy, one remote waiter per name, local hand-off: what the engine sends to the backend, and what not. */
class LocalWaitersAndHandOffTest {

    private final String server = CountingMemClient.newServer();
    private final CountingMemClient client = new CountingMemClient(server, CountingMemClient.shortWatchdog());
    private final MemLockClient other = MemLockClient.create(server, CountingMemClient.shortWatchdog());

    @AfterEach
    void close() {
        client.close();
        other.close();
    }

    /**
     * A look that found the lock busy gives up its place in the server's queue after it answered; the next look of the
     * same name waits for that withdrawal, so that it never finds the place on its way out still ahead of it. Before,
     * the withdrawal raced the next look, and under load a {@code tryLock()} of a free lock could fail.
     */
    @Test
    void aLookAfterABusyLookFindsAFreeLockFreeWhileTheWithdrawalIsOnItsWay() throws Exception {
        DistributedLock held = other.lock("withdrawing");
        held.lock();
        java.util.concurrent.CompletableFuture<Void> gate = new java.util.concurrent.CompletableFuture<>();
        client.counting().withdrawGate = gate;
        AtomicInteger firstLook = new AtomicInteger(-1);
        Thread first = new Thread(() -> firstLook.set(client.lock("withdrawing").tryLock() ? 1 : 0), "first-look");
        first.start();
        first.join(5000);
        assertThat(firstLook).as("busy").hasValue(0);
        await().atMost(Duration.ofSeconds(3)).until(() -> client.counting().withdrawals.get() == 1);
        held.unlock();
        java.util.concurrent.CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS).execute(() -> gate.complete(null));

        long start = System.nanoTime();
        DistributedLock lock = client.lock("withdrawing");
        assertThat(lock.tryLock()).as("another thread of the same client, the lock free, the withdrawal on its way")
                .isTrue();
        assertThat(gate).as("the look went after the withdrawal").isDone();
        assertThat(System.nanoTime() - start).isLessThan(TimeUnit.SECONDS.toNanos(2));
        lock.unlock();
    }

    @Test
    void reentrantAcquiresCostNoRoundTripAndKeepTheToken() throws Exception {
        DistributedLock lock = client.lock("reentrant");
        lock.lock();
        long token = lock.fencingToken().getAsLong();
        lock.lock();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.tryLock(Duration.ofSeconds(1), Duration.ofSeconds(5))).isTrue();
        assertThat(client.lock("reentrant").getHoldCount()).as("another view of the same name").isEqualTo(4);
        assertThat(lock.fencingToken()).hasValue(token);
        assertThat(client.counting().acquires).hasValue(1);
        for (int i = 0; i < 3; i++) {
            lock.unlock();
        }
        assertThat(client.counting().releases).as("only the outermost unlock goes remote").hasValue(0);
        assertThat(lock.isHeldByCurrentThread()).isTrue();
        lock.unlock();
        assertThat(client.counting().releases).hasValue(1);
        assertThat(lock.getHoldCount()).isZero();
        assertThat(lock.fencingToken()).isEmpty();
    }

    @Test
    void threadsOfOneClientShareOneRemoteWaiterAndGetTheLockByHandOff() throws Exception {
        DistributedLock held = other.lock("shared-waiter");
        held.lock();
        DistributedLock lock = client.lock("shared-waiter");
        ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger maxInside = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            Thread t = new Thread(() -> {
                lock.lock();
                try {
                    maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    tokens.add(lock.fencingToken().getAsLong());
                    inside.decrementAndGet();
                } finally {
                    lock.unlock();
                }
            }, "waiter-" + i);
            threads.add(t);
            t.start();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> threads.stream()
                .allMatch(t -> t.getState() == Thread.State.WAITING));
        assertThat(client.counting().acquires).as("only the head of the local queue waits remotely").hasValue(1);
        long before = held.fencingToken().getAsLong();
        held.unlock();
        for (Thread t : threads) {
            t.join(5000);
            assertThat(t.isAlive()).isFalse();
        }
        CountingOps ops = client.counting();
        assertThat(maxInside).hasValue(1);
        assertThat(ops.maxInFlightAcquires).hasValue(1);
        assertThat(ops.acquires).hasValue(1);
        assertThat(ops.handOffs).as("the other seven got it by hand-off").hasValue(7);
        assertThat(ops.releases).as("one real release at the end").hasValue(1);
        assertThat(tokens).hasSize(8).doesNotHaveDuplicates().allMatch(t -> t > before);
        assertThat(new ArrayList<>(tokens)).isSorted();
        assertThat(lock.isLocked()).isFalse();
        assertThat(client.engineForTest().localStateCount()).isZero();
    }

    @Test
    void handOffsAreBoundedSoThatOtherClientsGetTheirTurn() throws Exception {
        DistributedLock lock = client.lock("bounded");
        int threads = 4;
        int rounds = 200;
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                for (int r = 0; r < rounds; r++) {
                    lock.lock();
                    lock.unlock();
                }
            }, "busy-" + i);
            workers.add(t);
        }
        workers.forEach(Thread::start);
        // the other client must get in while this one's threads keep the lock busy
        DistributedLock outsider = other.lock("bounded");
        assertThat(outsider.tryLock(10, TimeUnit.SECONDS)).isTrue();
        outsider.unlock();
        for (Thread t : workers) {
            t.join(20_000);
            assertThat(t.isAlive()).isFalse();
        }
        CountingOps ops = client.counting();
        assertThat(ops.handOffs.get()).isPositive();
        assertThat(ops.releases.get()).as("a real release at least every %d hand-offs",
                LockEngine.MAX_LOCAL_HAND_OFFS).isGreaterThanOrEqualTo(ops.handOffs.get() / (LockEngine.MAX_LOCAL_HAND_OFFS + 1));
        assertThat(ops.acquires.get() + ops.handOffs.get()).isEqualTo(threads * rounds);
    }

    @Test
    void singleAttemptWhileHeldLocallyAsksNobody() throws Exception {
        DistributedLock lock = client.lock("busy-here");
        lock.lock();
        Thread t = new Thread(() -> assertThat(lock.tryLock()).isFalse());
        t.start();
        t.join();
        assertThat(client.counting().acquires).hasValue(1);
        lock.unlock();
    }
}
