package io.latchkey.core.internal;

import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.core.RemoteLockOps;
import java.util.Objects;

/**
 * A read-write pair on one name. The read half runs on shared {@link RemoteLockOps} (several local owners at
 * once); the write half is exclusive. A thread holding the write lock may take the read lock (downgrade: its
 * request bypasses the local queue, the backend grants it at once); a thread holding only the read lock is
 * refused the write lock (no upgrade, which would deadlock two upgrading readers).
 */
final class EngineReadWriteLock implements DistributedReadWriteLock {

    private final String name;
    private final EngineLock readLock;
    private final EngineLock writeLock;

    EngineReadWriteLock(LockEngine engine, RemoteLockOps readOps, RemoteLockOps writeOps, String name) {
        this.name = name;
        this.readLock = new EngineLock(engine, Objects.requireNonNull(readOps, "readOps"), name,
                EngineLock.Role.READ);
        this.writeLock = new EngineLock(engine, Objects.requireNonNull(writeOps, "writeOps"), name,
                EngineLock.Role.WRITE);
        readLock.partner = writeLock;
        writeLock.partner = readLock;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DistributedLock readLock() {
        return readLock;
    }

    @Override
    public DistributedLock writeLock() {
        return writeLock;
    }

    @Override
    public String toString() {
        return "DistributedReadWriteLock{name='" + name + "'}";
    }
}
