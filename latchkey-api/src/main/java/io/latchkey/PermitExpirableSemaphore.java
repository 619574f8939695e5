package io.latchkey;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.Optional;

/**
 * A semaphore whose permits are named and leased, shared by every client of the same backend and namespace that uses
 * the same name: {@link #acquire(Duration)} returns a permit id, and a permit not released within its lease returns
 * to the semaphore by itself, so a crashed holder cannot keep permits.
 *
 * <pre>{@code
 * PermitExpirableSemaphore workers = client.permitExpirableSemaphore("gpu-slots");
 * workers.trySetPermits(4);
 * String permit = workers.acquire(Duration.ofMinutes(10));
 * try {
 *     train();
 * } finally {
 *     workers.release(permit);
 * }
 * }</pre>
 *
 * <h2>Permits and ownership</h2>
 * The permit id is the owner: whoever has it may {@link #release(String) release} it or {@link #updateLease extend}
 * it, from any thread or client. A semaphore starts with no permits until {@link #trySetPermits} or
 * {@link #addPermits}. There are no fencing tokens: a holder whose lease ran out is not told, and its
 * {@code release} returns {@code false}; protect shared resources with a {@link DistributedLock}'s token where a
 * late holder must be refused.
 *
 * <h2>Leases, renewal and crashes</h2>
 * A permit taken with a lease time is never renewed: it returns to the semaphore when its lease has passed, released
 * or not ({@link #updateLease} gives it a new lease from now). A permit taken without one ({@link #acquire()},
 * {@link #tryAcquire(Duration)}) is renewed by the client's watchdog until released, and returns about
 * {@link ClientOptions#watchdogTimeout()} after its client died or was closed; Redis, ZooKeeper, etcd, SQL and
 * {@code file://} offer it, {@code mem://} does not (its permits live in one JVM and end with their lease only). On
 * ZooKeeper a permit is also an ephemeral node: a crashed holder's permits return when its session expires, whatever
 * their lease. A release that did not reach the server throws {@link LockUnavailableException} and
 * is retried in the background until the server answers (the permit's own key or node is deleted, which is safe to
 * repeat); the lease bounds it either way.
 *
 * <h2>Waiting, interruption, timeouts</h2>
 * A waiter is woken by the backend when a permit is released, expires or is added (Redis pub/sub, ZooKeeper and etcd
 * watches), with a bounded re-check as a fallback (an expiry is noticed by the next look). Within one client, waiters
 * wait in FIFO order behind one remote attempt at a time; across clients the order is not kept. An interrupted
 * acquire throws {@link InterruptedException} (the flag is then cleared) and leaves no permit taken: a grant that
 * raced the interrupt is released before the exception is thrown. A {@code waitTime} of zero or less tries once; a
 * positive one always gets the answer of its first look at the server, even when that round trip is slower than the
 * wait. Every call that talks to the server answers within the client's
 * {@link ClientOptions#operationTimeout() operation timeout} per round trip or throws {@link LockUnavailableException}.
 *
 * <h2>Memory effects</h2>
 * Within one client, actions before a {@code release} happen-before actions after an {@code acquire} that obtains
 * the released permit. Across clients the backend's order is the only order.
 */
public interface PermitExpirableSemaphore {

    /**
     * The semaphore's name.
     *
     * @return the name given to {@link LockClient#permitExpirableSemaphore}
     */
    String name();

    /**
     * Takes a permit leased for {@code leaseTime}, waiting as long as needed.
     *
     * @param leaseTime how long the permit lives unless released or extended; positive
     * @return the permit's id
     * @throws InterruptedException if the thread is interrupted while waiting (no permit is left taken)
     * @throws IllegalArgumentException if {@code leaseTime} is not positive or longer than
     *         {@link ClientOptions#MAX_LEASE_TIME}
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    String acquire(Duration leaseTime) throws InterruptedException;

    /**
     * Takes a permit leased for {@code leaseTime} if one becomes available within {@code waitTime}.
     *
     * @param waitTime how long to wait; zero or negative tries once
     * @param leaseTime how long the permit lives unless released or extended; positive
     * @return the permit's id, or empty if none became available in time
     * @throws InterruptedException if the thread is interrupted while waiting (no permit is left taken)
     * @throws IllegalArgumentException if {@code leaseTime} is not positive or longer than
     *         {@link ClientOptions#MAX_LEASE_TIME}
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    Optional<String> tryAcquire(Duration waitTime, Duration leaseTime) throws InterruptedException;

    /**
     * Takes a permit without a fixed lease, waiting as needed, and returns its id. The permit is renewed by the
     * client's watchdog (every {@link ClientOptions#watchdogTimeout() watchdogTimeout}/3; the client's permits of
     * every semaphore renewed together in batches) until {@link #release(String) released}; if the client dies or
     * is closed without releasing it, it returns to the semaphore about {@code watchdogTimeout} later.
     * {@link #updateLease} on such a permit gives it a fixed lease and ends its renewal. There is no loss signal: a
     * permit that could not be renewed in time (the client was cut off from the server for longer than
     * {@code watchdogTimeout}) is dropped from renewal and logged, and its {@code release} returns {@code false}.
     *
     * @return the permit's id
     * @throws InterruptedException if the thread is interrupted while waiting (no permit is left taken)
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     * @throws UnsupportedOperationException if the backend does not renew permits ({@code mem://}; the default)
     */
    default String acquire() throws InterruptedException {
        throw new UnsupportedOperationException(
                "this backend does not renew permits by a watchdog; pass a lease time: " + this);
    }

    /**
     * Takes a watchdog-renewed permit (see {@link #acquire()}) if one becomes available within {@code waitTime}.
     *
     * @param waitTime how long to wait; zero or negative tries once
     * @return the permit's id, or empty if none became available in time
     * @throws InterruptedException if the thread is interrupted while waiting (no permit is left taken)
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     * @throws UnsupportedOperationException if the backend does not renew permits ({@code mem://}; the default)
     */
    default Optional<String> tryAcquire(Duration waitTime) throws InterruptedException {
        throw new UnsupportedOperationException(
                "this backend does not renew permits by a watchdog; pass a lease time: " + this);
    }

    /**
     * {@link #acquire(Duration)} without blocking a thread: completes with the permit's id.
     *
     * <p>Asynchronous: no thread waits. The future completes on a Latchkey thread (use the {@code *Async} stages with
     * an executor of your own for work that blocks). Cancelling it before it completes withdraws the waiter; if a grant
     * raced the cancellation, what it took is given back. It fails with {@link LockUnavailableException} if the server
     * does not answer within the operation timeout. Offered by every backend of this project
     * (all run their permit semaphores on Latchkey's engine); a backend that does not throws
     * {@link UnsupportedOperationException}.
     *
     * @param leaseTime how long the permit lives unless released or extended; positive
     * @return a future completing with the permit's id
     * @throws IllegalArgumentException if {@code leaseTime} is not positive or longer than
     *         {@link ClientOptions#MAX_LEASE_TIME}
     * @throws UnsupportedOperationException if the backend's semaphores are not on the engine
     */
    default CompletableFuture<String> acquireAsync(Duration leaseTime) {
        throw new UnsupportedOperationException("acquireAsync is not offered by " + this);
    }

    /**
     * {@link #tryAcquire(Duration, Duration)} without blocking a thread.
     *
     * <p>Asynchronous: no thread waits. The future completes on a Latchkey thread (use the {@code *Async} stages with
     * an executor of your own for work that blocks). Cancelling it before it completes withdraws the waiter; if a grant
     * raced the cancellation, what it took is given back. It fails with {@link LockUnavailableException} if the server
     * does not answer within the operation timeout. Offered by every backend of this project
     * (all run their permit semaphores on Latchkey's engine); a backend that does not throws
     * {@link UnsupportedOperationException}.
     *
     * @param waitTime how long to wait; zero or negative tries once
     * @param leaseTime how long the permit lives unless released or extended; positive
     * @return a future completing with the permit's id, or empty if none became available in time
     * @throws IllegalArgumentException if {@code leaseTime} is not positive or longer than
     *         {@link ClientOptions#MAX_LEASE_TIME}
     * @throws UnsupportedOperationException if the backend's semaphores are not on the engine
     */
    default CompletableFuture<Optional<String>> tryAcquireAsync(Duration waitTime, Duration leaseTime) {
        throw new UnsupportedOperationException("tryAcquireAsync is not offered by " + this);
    }

    /**
     * {@link #release(String)} without blocking a thread.
     *
     * @param permitId an id returned by an acquire
     * @return a future completing with whether the permit was held and is now returned, or failing with
     *         {@link LockUnavailableException}
     * @throws UnsupportedOperationException if the backend's semaphores are not on the engine
     */
    default CompletableFuture<Boolean> releaseAsync(String permitId) {
        throw new UnsupportedOperationException("releaseAsync is not offered by " + this);
    }

    /**
     * Returns the permit with this id and wakes waiters.
     *
     * @param permitId an id returned by an acquire
     * @return {@code true} if the permit was held and is now returned; {@code false} if it had expired or was already
     *         released (by anyone)
     * @throws LockUnavailableException if the server does not answer within the operation timeout (the release is
     *         retried in the background; the lease bounds it either way)
     */
    boolean release(String permitId);

    /**
     * Gives the permit a new lease of {@code leaseTime} from now (a watchdog-renewed permit then stops being
     * renewed).
     *
     * @param permitId an id returned by an acquire
     * @param leaseTime the new lease, from now; positive
     * @return {@code true} if the permit was held; {@code false} if it had expired or was released
     * @throws IllegalArgumentException if {@code leaseTime} is not positive or longer than
     *         {@link ClientOptions#MAX_LEASE_TIME}
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    boolean updateLease(String permitId, Duration leaseTime);

    /**
     * The permits available now, counting permits whose lease has passed as available: a snapshot.
     *
     * @return the available permits; 0 for a semaphore never set
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    int availablePermits();

    /**
     * Sets the number of permits if it has never been set (of clients racing to set it, one wins).
     *
     * @param permits zero or more
     * @return whether this call set them
     * @throws IllegalArgumentException if {@code permits < 0}
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    boolean trySetPermits(int permits);

    /**
     * Adds permits (waking waiters), or removes available permits if {@code permits} is negative; held permits are
     * not revoked.
     *
     * @param permits how many to add; negative to remove
     * @throws LockUnavailableException if the server does not answer within the operation timeout
     */
    void addPermits(int permits);
}
