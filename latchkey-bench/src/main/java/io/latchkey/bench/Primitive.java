package io.latchkey.bench;

/**
 * What a row's cycle exercises: the plain lock of the main tables, or one of the synchronizers built next to it.
 * Each contender maps a primitive to its own library's counterpart (Latchkey's {@code readWriteLock(name).readLock()}
 * against Redisson's {@code getReadWriteLock(name).readLock()}, and so on).
 */
public enum Primitive {
    /** {@code lock()} + {@code unlock()} of the reentrant lock. */
    LOCK("lock"),
    /** {@code lock()} + {@code unlock()} of a read-write lock's read lock. */
    READ_LOCK("read lock"),
    /** {@code lock()} + {@code unlock()} of a read-write lock's write lock. */
    WRITE_LOCK("write lock"),
    /** {@code lock()} + {@code unlock()} of the fair (FIFO) lock. */
    FAIR_LOCK("fair lock"),
    /** {@code acquire()} + {@code release()} of one permit of a counting semaphore. */
    SEMAPHORE("semaphore"),
    /** {@code acquire(lease)} + {@code release(id)} of a permit-expirable semaphore. */
    PERMIT_SEMAPHORE("permit-expirable semaphore"),
    /** {@code trySetCount(1)} + {@code countDown()} + {@code await()} of a count-down latch. */
    COUNT_DOWN_LATCH("count-down latch");

    private final String label;

    Primitive(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
