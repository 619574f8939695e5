package io.latchkey.reactor;

import io.latchkey.DistributedReadWriteLock;
import reactor.core.scheduler.Scheduler;

/** A distributed read-write lock for reactive code: its two halves are {@link ReactiveLock}s. */
public final class ReactiveReadWriteLock {

    private final DistributedReadWriteLock lock;
    private final ReactiveLock readLock;
    private final ReactiveLock writeLock;

    ReactiveReadWriteLock(DistributedReadWriteLock lock, Scheduler scheduler) {
        this.lock = lock;
        this.readLock = new ReactiveLock(lock.readLock(), scheduler);
        this.writeLock = new ReactiveLock(lock.writeLock(), scheduler);
    }

    /** {@return the name shared by both locks} */
    public String name() {
        return lock.name();
    }

    /** {@return the read half: shared, held by any number of read leases at once} */
    public ReactiveLock readLock() {
        return readLock;
    }

    /** {@return the write half: exclusive of other writers and of readers} */
    public ReactiveLock writeLock() {
        return writeLock;
    }
}
