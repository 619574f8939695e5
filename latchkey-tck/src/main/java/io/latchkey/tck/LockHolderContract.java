package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Who holds a lock: {@link DistributedLock#holder()} names the holding client (its {@code clientName}), its fencing
 * token and lease, for plain, fair and write locks, and a timed-out wait tells its listener. Part of
 * {@link LockContractTck}, which every backend's lock tests extend.
 */
public abstract class LockHolderContract extends TckBase {

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
}
