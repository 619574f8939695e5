package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Capability;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockClient#fairLock}: a reentrant lock granted in arrival order among waiters across clients; a waiter
 * that gives up leaves the queue without delaying the ones behind it. Skipped (with the reason) for backends
 * without {@link Capability#FAIR_LOCK}; {@link ValidationTck} checks that those refuse it.
 */
public abstract class FairLockTck extends TckBase {

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
