package io.latchkey;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * A mutual-exclusion lock shared by every client of the same backend and namespace that uses the same name.
 *
 * <p>It offers two ways to own the lock.
 *
 * <h2>Thread-owned ({@link Lock})</h2>
 * Like {@link java.util.concurrent.locks.ReentrantLock}: the thread that locks owns the lock, may lock it again
 * (each {@code lock} needs a matching {@code unlock}), and only it may unlock.
 * <pre>{@code
 * DistributedLock lock = client.lock("order:42");
 * lock.lock();
 * try {
 *     // at most one thread in all clients runs this at a time
 * } finally {
 *     lock.unlock();
 * }
 * }</pre>
 *
 * <h2>Lease-owned ({@link #acquire()})</h2>
 * The returned {@link LockLease} is the owner, not the thread: it can be released from another thread, and it
 * works with virtual threads and asynchronous code. Leases are not reentrant: each acquire is a distinct owner and
 * waits like any other.
 * <pre>{@code
 * try (LockLease lease = lock.acquire()) {
 *     write(lease.fencingToken());
 * }
 * }</pre>
 *
 * <h2>Leases and renewal</h2>
 * Methods without a lease time hold the lock until it is released, renewed by the client's watchdog every
 * {@link ClientOptions#renewalInterval()}; if the process dies the lock frees itself after
 * {@link ClientOptions#watchdogTimeout()}. Methods with a lease time are never renewed: the lock frees itself
 * when the lease has passed, whether or not it was released.
 *
 * <h2>Waiting</h2>
 * A waiter is woken by the backend when the lock is released (Redis pub/sub, ZooKeeper watches, PostgreSQL
 * notifications), with a bounded re-check as a fallback; threads of one JVM waiting on one name share a single
 * remote waiter, and a lock released while another thread of the same client waits may pass to it directly. So the
 * lock from {@link LockClient#lock} is not fair: a waiter may be overtaken. A lock from
 * {@link LockClient#fairLock} is: every waiter, in every client (the holder's included), keeps its own place in
 * the backend's queue from the moment it starts waiting, and waiters are served in that order.
 * Interruption is honoured by {@link #lockInterruptibly()}, {@link #tryLock(long, TimeUnit)} and the
 * {@code acquire} methods: they throw {@link InterruptedException} and leave no lock behind.
 *
 * <h2>Fencing and loss</h2>
 * Every free-to-held transition gets a {@link #fencingToken() fencing token} greater than every earlier one for
 * this name. If a held lock is lost, the owner's next {@link #unlock()} throws {@link LockLostException}.
 *
 * <h2>Memory effects</h2>
 * As for {@link Lock}: a successful lock has the same memory effects as a successful acquire of a JUC lock, and
 * unlock those of a release; they hold across JVMs through the backend's ordering.
 *
 * <h2>Errors</h2>
 * Unreachable or slow backends: {@link LockUnavailableException} within {@link ClientOptions#operationTimeout()}.
 * Non-positive durations: {@link IllegalArgumentException}. {@link #newCondition()} is not supported.
 */
public interface DistributedLock extends Lock {

    /** {@return the lock's name, as given to the client} */
    String name();

    /**
     * Acquires the lock for the current thread with a fixed lease: the lock expires {@code leaseTime} after this
     * acquire unless unlocked before. Waits uninterruptibly, like {@link #lock()}. A reentrant call keeps the
     * existing lease and token.
     *
     * @param leaseTime how long after this acquire the lock expires on the server if not unlocked; positive
     * @throws IllegalArgumentException if {@code leaseTime} is not positive or longer than
     *         {@link ClientOptions#MAX_LEASE_TIME}
     */
    void lock(Duration leaseTime);

    /**
     * Acquires the lock for the current thread if it becomes free within {@code waitTime}, with a fixed lease
     * (or watchdog renewal when {@code leaseTime} is {@code null}).
     *
     * @param waitTime how long to wait at most; zero or negative makes a single attempt; too long to represent waits forever
     * @param leaseTime how long after the acquire the lock expires on the server, or {@code null} for a
     *        watchdog-renewed hold
     * @return {@code true} if acquired (or already held by this thread), {@code false} if the wait ran out
     * @throws IllegalArgumentException if {@code leaseTime} is not positive or longer than
     *         {@link ClientOptions#MAX_LEASE_TIME}
     * @throws InterruptedException if interrupted while waiting; no lock is then held
     */
    boolean tryLock(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * {@return whether any owner, in any client, holds the lock now} This is a remote query, and its answer may be
     * out of date by the time it returns.
     */
    boolean isLocked();

    /**
     * {@return who holds the lock now, in any client, or empty if it is free} One remote query, bounded by the
     * operation timeout: the holder's {@linkplain ClientOptions#clientName() client name}, when its hold began, its
     * fencing token and lease left where the backend keeps them. A snapshot: the holder may have released or lost the
     * lock by the time it is returned, so use it to tell operators who is in the way (after a {@code tryLock} that
     * returned {@code false}, say), never to decide who may act. The default answers empty, for a lock that cannot
     * tell.
     *
     * @throws LockUnavailableException if the backend is unreachable or slower than the operation timeout
     */
    default Optional<LockHolder> holder() {
        return Optional.empty();
    }

    /** {@return whether the current thread holds the lock} A local query, no round trip. */
    boolean isHeldByCurrentThread();

    /** {@return how many times the current thread holds the lock: 0 if it does not} */
    int getHoldCount();

    /** {@return the fencing token of the current thread's hold, or empty if it holds none} */
    OptionalLong fencingToken();

    /**
     * Releases the lock whoever holds it. Use for administration only: the holder is told at its next renewal or
     * unlock ({@link LockLostException}).
     *
     * @return whether the lock was held
     */
    boolean forceUnlock();

    /**
     * Acquires a watchdog-renewed lease, waiting as long as needed.
     *
     * @return the new lease, which the caller must release
     * @throws InterruptedException if interrupted while waiting; no lock is then held
     */
    LockLease acquire() throws InterruptedException;

    /**
     * Acquires a lease that expires after {@code leaseTime}, waiting as long as needed.
     *
     * @param leaseTime how long after the acquire the lock expires on the server; it is never renewed
     * @return the new lease, which the caller should release before it expires
     * @throws IllegalArgumentException if {@code leaseTime} is not positive or longer than
     *         {@link ClientOptions#MAX_LEASE_TIME}
     * @throws InterruptedException if interrupted while waiting; no lock is then held
     */
    LockLease acquire(Duration leaseTime) throws InterruptedException;

    /**
     * Acquires a watchdog-renewed lease if the lock becomes free within {@code waitTime} (zero or negative: try once).
     *
     * @param waitTime how long to wait at most; zero or negative makes a single attempt; too long to represent waits forever
     * @return the new lease, or empty if the lock was still held by another owner when the wait ran out
     * @throws InterruptedException if interrupted while waiting; no lock is then held
     */
    Optional<LockLease> tryAcquire(Duration waitTime) throws InterruptedException;

    /**
     * Acquires a lease if the lock becomes free within {@code waitTime}; the lease expires after
     * {@code leaseTime}, or is watchdog-renewed when {@code leaseTime} is {@code null}.
     *
     * @param waitTime how long to wait at most; zero or negative makes a single attempt; too long to represent waits forever
     * @param leaseTime how long after the acquire the lock expires on the server, or {@code null} for a
     *        watchdog-renewed lease
     * @return the new lease, or empty if the lock was still held by another owner when the wait ran out
     * @throws InterruptedException if interrupted while waiting; no lock is then held
     */
    Optional<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Acquires a watchdog-renewed lease without blocking a thread while waiting. Cancelling the future abandons
     * the wait; if the lock was taken concurrently it is released.
     *
     * @return a future that completes with the new lease, or fails with {@link LockUnavailableException} if the
     *         backend cannot be reached or the client closes
     */
    CompletableFuture<LockLease> acquireAsync();

    /**
     * Like {@link #tryAcquire(Duration, Duration)} without blocking a thread: completes with an empty optional
     * when {@code waitTime} runs out.
     *
     * @param waitTime how long to wait at most; zero or negative makes a single attempt; too long to represent waits forever
     * @param leaseTime how long after the acquire the lock expires on the server, or {@code null} for a
     *        watchdog-renewed lease
     * @return a future that completes with the new lease, or with an empty optional when the wait runs out
     */
    CompletableFuture<Optional<LockLease>> tryAcquireAsync(Duration waitTime, Duration leaseTime);
}
