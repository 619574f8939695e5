package io.latchkey.core.mem;

import io.latchkey.core.Arguments;
import io.latchkey.DistributedSemaphore;
import java.time.Duration;

/**
 * A {@link DistributedSemaphore} on the mem server. Waiters queue in FIFO order at the server and are granted as
 * soon as the first in line fits; interruption leaves the line and gives back permits granted meanwhile.
 */
final class MemSemaphore implements DistributedSemaphore {

    private final MemLockClient client;
    private final String name;
    private final String key;

    MemSemaphore(MemLockClient client, String name, String key) {
        this.client = client;
        this.name = name;
        this.key = key;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void acquire() throws InterruptedException {
        acquire(1);
    }

    @Override
    public void acquire(int permits) throws InterruptedException {
        take(Arguments.positive("permits", permits), Long.MAX_VALUE);
    }

    @Override
    public boolean tryAcquire() {
        client.ensureOpen();
        String got = store().acquire(key, 1, 0, System.nanoTime()).getNow(null);
        return got != null;
    }

    @Override
    public boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException {
        Arguments.positive("permits", permits);
        return take(permits, Arguments.waitDeadline(waitTime));
    }

    private boolean take(int permits, long deadline) throws InterruptedException {
        client.ensureOpen();
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        return MemWaits.await(client.track(store().acquire(key, permits, 0, deadline)),
                won -> store().release(key, permits)) != null;
    }

    @Override
    public void release() {
        release(1);
    }

    @Override
    public void release(int permits) {
        Arguments.positive("permits", permits);
        client.ensureOpen();
        store().release(key, permits);
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

    @Override
    public int drainPermits() {
        client.ensureOpen();
        return store().drainPermits(key);
    }

    private MemSynchronizerStore store() {
        return client.server().synchronizers;
    }

    @Override
    public String toString() {
        return "DistributedSemaphore{name='" + name + "', backend=mem}";
    }
}
