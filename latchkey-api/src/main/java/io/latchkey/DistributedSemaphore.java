package io.latchkey;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * A counting semaphore shared by every client of the same backend and namespace that uses the same name, shaped
 * like {@link java.util.concurrent.Semaphore}.
 *
 * <pre>{@code
 * DistributedSemaphore slots = client.semaphore("downloads");
 * slots.trySetPermits(10);          // once, by whoever sets the semaphore up
 * slots.acquire();
 * try {
 *     download();                   // at most 10 at a time across all clients
 * } finally {
 *     slots.release();
 * }
 * }</pre>
 *
 * <h2>Permits</h2>
 * A semaphore starts with no permits: {@link #trySetPermits} (once) or {@link #addPermits} gives it some; until
 * then every acquire waits. Permits are <em>not owned</em>: they are counts, not holds. Any client may
 * {@link #release} permits it never acquired (as with {@code java.util.concurrent.Semaphore}), nothing remembers who
 * took them, and there are no leases, no renewal and no fencing tokens. Use a {@link PermitExpirableSemaphore} when
 * a crashed holder must not keep its permits, or a {@link DistributedLock} when the holder needs a fencing token.
 *
 * <h2>Counts past the int range</h2>
 * The count is a 64-bit number on the server, on every backend. {@link #addPermits} and {@link #release} beyond
 * {@code Integer.MAX_VALUE} are kept, not refused (where {@code java.util.concurrent.Semaphore} throws an
 * {@code Error}: a distributed count may be raised by several clients at once, and refusing would need every backend's
 * release to fail half-way); {@link #availablePermits()} and {@link #drainPermits()} report at most
 * {@code Integer.MAX_VALUE}, and {@code drainPermits} takes every permit. {@code addPermits} of a negative number may
 * take the count below zero, as {@code Semaphore.reducePermits} does; permits are then available again once releases
 * bring it above zero. (ZooKeeper keeps one node per permit taken, so it cannot take billions of them at once.)
 *
 * <h2>What a crashed holder leaves</h2>
 * Because permits are counts, permits taken by a process that dies without releasing them stay taken
 * (Redis, etcd, {@code mem://}); only {@link #addPermits} gives them back. ZooKeeper is the exception: each permit is
 * an ephemeral node of the taker's session, so a crashed taker's permits come back when its session expires. A
 * release that did not reach the server throws {@link LockUnavailableException}; it is not retried (a count cannot be
 * given back twice safely), except on ZooKeeper, where it deletes the permit's own node and is retried in the
 * background until the server answers.
 *
 * <h2>Waiting</h2>
 * A waiter is woken by the backend when permits are released or added (Redis pub/sub, ZooKeeper watches, etcd
 * watches), with a bounded re-check as a fallback. Threads of one client waiting on one name wait in a local FIFO
 * queue behind one remote attempt at a time; across clients, waiters are <em>not</em> served in arrival order (a
 * release wakes the waiting clients, and the first to ask gets the permits). A waiter asking for many permits may be
 * overtaken by waiters asking for fewer.
 *
 * <h2>Interruption and timeouts</h2>
 * {@link #acquire()} and {@link #tryAcquire(int, Duration)} throw {@link InterruptedException} when the waiting thread
 * is interrupted (the flag is then cleared, as in {@code java.util.concurrent}); an interrupted acquire leaves no
 * permits taken: if its grant raced the interrupt, the permits are given back before the exception is thrown. A
 * {@code waitTime} of zero or less tries once without waiting. A positive {@code waitTime} always gets the answer of
 * its first look at the server, even when that round trip takes longer than the wait (a cold connection pool, a slow
 * link): free permits are taken, as {@link java.util.concurrent.Semaphore#tryAcquire(long,
 * java.util.concurrent.TimeUnit)} takes them whatever the timeout. Every call that talks to the server answers
 * within the client's {@link ClientOptions#operationTimeout() operation timeout} per round trip or throws
 * {@link LockUnavailableException}.
 *
 * <h2>Memory effects</h2>
 * Within one client, actions before a {@code release} happen-before actions after an {@code acquire} that obtains
 * a permit so released. Across clients the backend's order is the only order (a single Redis primary, ZooKeeper's
 * and etcd's linearizable writes): an acquire that took permits comes after the release or addition that made them
 * available.
 *
 * <h2>Arguments</h2>
 * Permit counts passed to {@code acquire}, {@code tryAcquire} and {@code release} must be positive; names follow
 * {@link LockClient}'s rules. Violations throw {@link IllegalArgumentException} with the offending value.
 */
public interface DistributedSemaphore {

    /**
     * The semaphore's name.
     *
     * @return the name given to {@link LockClient#semaphore}
     */
    String name();

    /**
     * Takes one permit, waiting as long as needed.
     *
     * @throws InterruptedException if the thread is interrupted while waiting (no permit is left taken)
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    void acquire() throws InterruptedException;

    /**
     * Takes {@code permits} permits at once (all or none), waiting as long as needed.
     *
     * @param permits how many, at least 1
     * @throws InterruptedException if the thread is interrupted while waiting (no permit is left taken)
     * @throws IllegalArgumentException if {@code permits < 1}
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    void acquire(int permits) throws InterruptedException;

    /**
     * {@link #acquire(int)} without blocking a thread: completes once the permits are taken.
     *
     * <p>Asynchronous: no thread waits. The future completes on a Latchkey thread (use the {@code *Async} stages with
     * an executor of your own for work that blocks). Cancelling it before it completes withdraws the waiter; if a grant
     * raced the cancellation, what it took is given back. It fails with {@link LockUnavailableException} if the server
     * does not answer within the operation timeout. Offered by every backend of this project
     * (all run their semaphores on Latchkey's engine); a backend that does not throws {@link UnsupportedOperationException}.
     *
     * @param permits how many, at least 1
     * @return a future completing when the permits are taken
     * @throws IllegalArgumentException if {@code permits < 1}
     * @throws UnsupportedOperationException if the backend's semaphores are not on the engine
     */
    default CompletableFuture<Void> acquireAsync(int permits) {
        throw new UnsupportedOperationException("acquireAsync is not offered by " + this);
    }

    /**
     * {@link #tryAcquire(int, Duration)} without blocking a thread.
     *
     * <p>Asynchronous: no thread waits. The future completes on a Latchkey thread (use the {@code *Async} stages with
     * an executor of your own for work that blocks). Cancelling it before it completes withdraws the waiter; if a grant
     * raced the cancellation, what it took is given back. It fails with {@link LockUnavailableException} if the server
     * does not answer within the operation timeout. Offered by every backend of this project
     * (all run their semaphores on Latchkey's engine); a backend that does not throws {@link UnsupportedOperationException}.
     *
     * @param permits how many, at least 1
     * @param waitTime how long to wait; zero or negative tries once
     * @return a future completing with whether the permits were taken (on {@code false} none are)
     * @throws IllegalArgumentException if {@code permits < 1}
     * @throws UnsupportedOperationException if the backend's semaphores are not on the engine
     */
    default CompletableFuture<Boolean> tryAcquireAsync(int permits, Duration waitTime) {
        throw new UnsupportedOperationException("tryAcquireAsync is not offered by " + this);
    }

    /**
     * {@link #release(int)} without blocking a thread: completes once the server has the permits back.
     *
     * @param permits how many, at least 1
     * @return a future completing when the permits are returned, or failing with {@link LockUnavailableException}
     * @throws IllegalArgumentException if {@code permits < 1}
     * @throws UnsupportedOperationException if the backend's semaphores are not on the engine
     */
    default CompletableFuture<Void> releaseAsync(int permits) {
        throw new UnsupportedOperationException("releaseAsync is not offered by " + this);
    }

    /**
     * Takes one permit if one is available now; never waits.
     *
     * @return whether it took one
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    boolean tryAcquire();

    /**
     * Takes {@code permits} permits at once if they become available within {@code waitTime}.
     *
     * @param permits how many, at least 1
     * @param waitTime how long to wait; zero or negative tries once
     * @return whether it took them (on {@code false} none are taken)
     * @throws InterruptedException if the thread is interrupted while waiting (no permit is left taken)
     * @throws IllegalArgumentException if {@code permits < 1}
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException;

    /**
     * Returns one permit (taken by anyone, or never taken: permits are not owned) and wakes waiters.
     *
     * @throws LockUnavailableException if the server does not answer within the operation timeout; the permit may or
     *         may not have been returned
     */
    void release();

    /**
     * Returns {@code permits} permits and wakes waiters.
     *
     * @param permits how many, at least 1
     * @throws IllegalArgumentException if {@code permits < 1}
     * @throws LockUnavailableException if the server does not answer within the operation timeout; the permits may or
     *         may not have been returned
     */
    void release(int permits);

    /**
     * The permits available now: a snapshot that may be stale by the time it is read.
     *
     * @return the available permits, saturated at {@code Integer.MAX_VALUE}, negative after {@link #addPermits} of a
     *         negative number took more than were free; 0 for a semaphore never set
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    int availablePermits();

    /**
     * Sets the semaphore's permits if it has never been set (atomically, on the server: of clients racing to set it,
     * one wins).
     *
     * @param permits the initial permits, zero or more
     * @return whether this call set them
     * @throws IllegalArgumentException if {@code permits < 0}
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    boolean trySetPermits(int permits);

    /**
     * Adds permits (waking waiters), or removes permits if {@code permits} is negative; the count may go below zero
     * (see the class comment).
     *
     * @param permits how many to add; negative to remove
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    void addPermits(int permits);

    /**
     * Takes every permit available now and returns how many; never waits.
     *
     * @return the permits taken, 0 if none were available
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    int drainPermits();
}
