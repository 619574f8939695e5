package io.latchkey.core.mem;

import io.latchkey.core.Arguments;
import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@link PermitExpirableSemaphore} on the mem server: each permit is leased under an id and returns to the
 * semaphore by itself when its lease passes on the server's clock; a waiter is woken at that moment.
 */
final class MemPermitExpirableSemaphore implements PermitExpirableSemaphore {

    private final MemLockClient client;
    private final String name;
    private final String key;

    MemPermitExpirableSemaphore(MemLockClient client, String name, String key) {
        this.client = client;
        this.name = name;
        this.key = key;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String acquire(Duration leaseTime) throws InterruptedException {
        return take(Arguments.leaseNanos(leaseTime), Long.MAX_VALUE);
    }

    @Override
    public Optional<String> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException {
        long lease = Arguments.leaseNanos(leaseTime);
        return Optional.ofNullable(take(lease, Arguments.waitDeadline(waitTime)));
    }

    private String take(long leaseNanos, long deadline) throws InterruptedException {
        client.ensureOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return MemWaits.await(client.track(store().acquire(key, 1, leaseNanos, deadline)),
                id -> store().release(key, id));
    }

    @Override
    public boolean release(String permitId) {
        Objects.requireNonNull(permitId, "permitId");
        client.ensureOpen();
        return store().release(key, permitId);
    }

    @Override
    public boolean updateLease(String permitId, Duration leaseTime) {
        Objects.requireNonNull(permitId, "permitId");
        long lease = Arguments.leaseNanos(leaseTime);
        client.ensureOpen();
        return store().updateLease(key, permitId, lease);
    }

    @Override
    public int availablePermits() {
        client.ensureOpen();
        return store().availablePermits(key);
    }

    @Override
    public boolean trySetPermits(int permits) {
        Arguments.notNegative("permits", permits);
        client.ensureOpen();
        return store().trySetPermits(key, permits);
    }

    @Override
    public void addPermits(int permits) {
        client.ensureOpen();
        store().addPermits(key, permits);
    }

    private MemSynchronizerStore store() {
        return client.server().synchronizers;
    }

    @Override
    public String toString() {
        return "PermitExpirableSemaphore{name='" + name + "', backend=mem}";
    }
}
