package io.latchkey;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A pair of locks on one name: any number of readers, or one writer. Both are reentrant for their thread.
 * A writer may take the read lock (and then release the write lock: a downgrade); a reader asking for the write
 * lock is refused with {@link IllegalMonitorStateException} rather than deadlocking (no upgrade).
 * Each read hold carries its own lease and is renewed and expires on its own.
 */
public interface DistributedReadWriteLock extends ReadWriteLock {

    /** {@return the name shared by both locks, as given to the client} */
    String name();

    @Override
    DistributedLock readLock();

    @Override
    DistributedLock writeLock();
}
