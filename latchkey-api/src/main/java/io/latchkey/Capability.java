package io.latchkey;

/**
 * What a backend supports. {@link LockClient#capabilities()} lists them; asking a client for a primitive outside
 * that set throws {@link UnsupportedOperationException} naming the backend.
 */
public enum Capability {
    /** {@link LockClient#lock(String)}: reentrant exclusive lock with watchdog and fixed leases. */
    LOCK,
    /** {@link LockClient#fairLock(String)}: FIFO among waiters across clients. */
    FAIR_LOCK,
    /** {@link LockClient#readWriteLock(String)}. */
    READ_WRITE_LOCK,
    /** {@link LockClient#semaphore(String)}. */
    SEMAPHORE,
    /** {@link LockClient#permitExpirableSemaphore(String)}. */
    PERMIT_EXPIRABLE_SEMAPHORE,
    /** {@link LockClient#countDownLatch(String)}. */
    COUNT_DOWN_LATCH,
    /** Waiters are woken by the backend (pub/sub, watches, notifications) rather than by polling. */
    PUSH_WAKEUP,
    /** Lock state survives in the backend so that {@code latchkey inspect} can list holders. */
    INSPECT,
    /** {@link LockClient#fencedStore(String)}: keys in the lock's server whose writes are checked against the hold. */
    FENCED_STORE
}
