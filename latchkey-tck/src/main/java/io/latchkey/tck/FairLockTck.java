package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Capability;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockClient#fairLock}: a reentrant lock granted in the order its waiters called {@code lock()}, across
 * clients and including the client that holds it (its own threads and leases queue at the server like anyone
 * else's, no local hand-off); a waiter that gives up leaves the queue without delaying the ones behind it. Skipped (with the reason) for backends
 * without {@link Capability#FAIR_LOCK}; {@link ValidationTck} checks that those refuse it.
 */
public abstract class FairLockTck extends TckBase {

    private static final Duration ORDER_WATCHDOG = Duration.ofSeconds(10);

    @BeforeEach
    final void requireFairLocks() {
        assumeCapability(Capability.FAIR_LOCK);
    }

    @Test
    void fairLockExcludesAndIsReentrant() throws Exception {
        String name = newName();
        DistributedLock lock = client().fairLock(name);
        DistributedLock other = openClient().fairLock(name);
        lock.lock();
        long token = lock.fencingToken().getAsLong();
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.fencingToken()).hasValue(token);
        assertThat(other.tryLock()).isFalse();
        assertThat(other.tryLock(200, TimeUnit.MILLISECONDS)).isFalse();
        lock.unlock();
        assertThat(other.tryLock()).isFalse();
        lock.unlock();
        assertThat(other.tryLock(slack().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(other.fencingToken().getAsLong()).isGreaterThan(token);
        other.unlock();
    }

    @Test
    void waitersAcrossClientsAreServedInArrivalOrder() throws Exception {
        String name = newName();
        DistributedLock holder = client().fairLock(name);
        holder.lock();
        List<LockClient> clients = List.of(openClient(), openClient(), openClient());
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Forked<Void>> waiters = new ArrayList<>();
        int count = 5;
        for (int i = 0; i < count; i++) {
            int id = i;
            LockClient c = clients.get(i % clients.size());
            Forked<Void> waiter = fork("fair-" + i, () -> {
                DistributedLock lock = c.fairLock(name);
                lock.lock();
                try {
                    order.add(id);
                    Thread.sleep(20);
                } finally {
                    lock.unlock();
                }
                return null;
            });
            awaitBlocked(waiter);
            // Blocked locally is not yet queued at the backend: give the request time to arrive.
            Thread.sleep(150);
            waiters.add(waiter);
        }
        holder.unlock();
        for (Forked<Void> waiter : waiters) {
            waiter.get(slack().multipliedBy(2));
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
    }

    /**
     * Waiters of the holder's own client keep their place: client A holds the lock; ten threads queue 150 ms apart, alternating between A and
     * B. A's own waiters must not wait behind B's because A holds the lock (they were served 1, 0, 3, 2 …).
     */
    @Test
    void waitersOfTheHoldingClientKeepTheirPlaceAmongAnotherClientsWaiters() throws Exception {
        LockClient a = orderClient();
        LockClient b = orderClient();
        assertServedInArrivalOrder(a, i -> i % 2 == 0 ? a : b, 10);
    }

    @Test
    void anotherClientsWaiterFirstThenTheHoldingClientsAlternately() throws Exception {
        LockClient a = orderClient();
        LockClient b = orderClient();
        assertServedInArrivalOrder(a, i -> i % 2 == 0 ? b : a, 6);
    }

    @Test
    void waitersOfTheHoldingClientOnlyAreServedInArrivalOrder() throws Exception {
        LockClient a = orderClient();
        assertServedInArrivalOrder(a, i -> a, 6);
    }

    /** Leases (the handle API) queue in the same line as threads, in the holding client as in another one. */
    @Test
    void leasesAndThreadsOfTheHoldingClientShareOneLine() throws Exception {
        String name = newName();
        LockClient a = orderClient();
        LockClient b = orderClient();
        DistributedLock holder = a.fairLock(name);
        holder.lock();
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Forked<Void>> waiters = new ArrayList<>();
        int count = 6;
        for (int i = 0; i < count; i++) {
            int id = i;
            DistributedLock lock = (i % 3 == 2 ? b : a).fairLock(name);
            boolean lease = i % 2 == 0;
            waiters.add(queue(i, () -> {
                if (lease) {
                    try (LockLease held = lock.acquire()) {
                        order.add(id);
                        Thread.sleep(20);
                    }
                } else {
                    lock.lock();
                    try {
                        order.add(id);
                        Thread.sleep(20);
                    } finally {
                        lock.unlock();
                    }
                }
                return null;
            }));
        }
        holder.unlock();
        for (Forked<Void> waiter : waiters) {
            waiter.get(slack().multipliedBy(2));
        }
        assertThat(order).containsExactly(0, 1, 2, 3, 4, 5);
    }

    /** A waiter of the holding client that is interrupted leaves the line; everyone behind keeps their place. */
    @Test
    void anInterruptedWaiterOfTheHoldingClientLeavesTheLine() throws Exception {
        String name = newName();
        LockClient a = orderClient();
        LockClient b = orderClient();
        DistributedLock holder = a.fairLock(name);
        holder.lock();
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Forked<Void>> waiters = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            waiters.add(queue(i, recordInOrder((i % 2 == 0 ? a : b).fairLock(name), i, order)));
        }
        Forked<Void> quitter = waiters.remove(0);
        quitter.thread().interrupt();
        assertThat(quitter.failure(slack())).isInstanceOf(InterruptedException.class);
        holder.unlock();
        for (Forked<Void> waiter : waiters) {
            waiter.get(slack().multipliedBy(2));
        }
        assertThat(order).containsExactly(1, 2, 3);
        DistributedLock after = b.fairLock(name);
        assertThat(after.tryLock(slack().toMillis(), TimeUnit.MILLISECONDS)).as("free afterwards").isTrue();
        after.unlock();
    }

    /** A waiter of the holding client whose wait runs out leaves the line; the one behind it is next. */
    @Test
    void aWaiterOfTheHoldingClientThatTimesOutLeavesTheLine() throws Exception {
        String name = newName();
        LockClient a = orderClient();
        LockClient b = orderClient();
        DistributedLock holder = a.fairLock(name);
        holder.lock();
        DistributedLock quitterLock = a.fairLock(name);
        Forked<Boolean> quitter = queue(0, () -> quitterLock.tryLock(1000, TimeUnit.MILLISECONDS));
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        Forked<Void> next = queue(1, recordInOrder(b.fairLock(name), 1, order));
        Forked<Void> last = queue(2, recordInOrder(a.fairLock(name), 2, order));
        assertThat(quitter.get(slack())).as("the quitter's wait ran out").isFalse();
        holder.unlock();
        next.get(slack());
        last.get(slack());
        assertThat(order).containsExactly(1, 2);
    }

    /**
     * A client for the tests of order: holds outlast a few seconds of waiters queueing even when a loaded machine
     * delays renewals (these tests check order, not leases).
     */
    private LockClient orderClient() {
        Duration watchdog = watchdogTimeout().compareTo(ORDER_WATCHDOG) < 0 ? ORDER_WATCHDOG : watchdogTimeout();
        LockClient c = openClient(options().toBuilder().watchdogTimeout(watchdog).build());
        // The order is that of arrival at the server. A new client's first acquire may first set up its session
        // (an etcd lease, a pub/sub connection), which on a loaded machine can outlast the 150 ms between two
        // waiters: warm it up so that the waiters' own requests are what the test orders.
        DistributedLock warmUp = c.fairLock(newName());
        warmUp.lock();
        warmUp.unlock();
        return c;
    }

    /**
     * {@code holderClient} holds a fair lock; {@code count} threads then call {@code lock()} 150 ms apart, thread
     * {@code i} on {@code clientOf(i)}: they must get it in that order.
     */
    private void assertServedInArrivalOrder(LockClient holderClient, IntFunction<LockClient> clientOf, int count)
            throws Exception {
        String name = newName();
        DistributedLock holder = holderClient.fairLock(name);
        holder.lock();
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<Forked<Void>> waiters = new ArrayList<>();
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            waiters.add(queue(i, recordInOrder(clientOf.apply(i).fairLock(name), i, order)));
            expected.add(i);
        }
        holder.unlock();
        for (Forked<Void> waiter : waiters) {
            waiter.get(slack().multipliedBy(2));
        }
        assertThat(order).containsExactlyElementsOf(expected);
    }

    /** Forks waiter {@code i} and gives its request time to reach the backend before the next one starts. */
    private <T> Forked<T> queue(int i, Callable<T> body) throws Exception {
        Forked<T> waiter = fork("fair-" + i, body);
        awaitBlocked(waiter);
        // Blocked locally is not yet queued at the backend: give the request time to arrive.
        Thread.sleep(150);
        return waiter;
    }

    private static Callable<Void> recordInOrder(DistributedLock lock, int id,
                                                                     ConcurrentLinkedQueue<Integer> order) {
        return () -> {
            lock.lockInterruptibly();
            try {
                order.add(id);
                Thread.sleep(20);
            } finally {
                lock.unlock();
            }
            return null;
        };
    }

    @Test
    void aWaiterThatGivesUpDoesNotDelayTheNext() throws Exception {
        String name = newName();
        DistributedLock holder = client().fairLock(name);
        holder.lock();
        LockClient quitterClient = openClient();
        Forked<Boolean> quitter = fork("quitter", () -> quitterClient.fairLock(name).tryLock(300,
                TimeUnit.MILLISECONDS));
        awaitBlocked(quitter);
        Thread.sleep(100);
        LockClient patientClient = openClient();
        Forked<Long> patient = fork("patient", () -> {
            DistributedLock lock = patientClient.fairLock(name);
            lock.lock();
            try {
                return lock.fencingToken().getAsLong();
            } finally {
                lock.unlock();
            }
        });
        awaitBlocked(patient);
        assertThat(quitter.get(slack())).as("the quitter's wait ran out").isFalse();
        long released = System.nanoTime();
        holder.unlock();
        patient.get(slack());
        assertThat(millisSince(released)).as("ms until the next waiter got the lock")
                .isLessThan(slack().toMillis());
        DistributedLock after = openClient().fairLock(name);
        assertThat(after.tryLock(slack().toMillis(), TimeUnit.MILLISECONDS)).as("free afterwards").isTrue();
        after.unlock();
    }
}
