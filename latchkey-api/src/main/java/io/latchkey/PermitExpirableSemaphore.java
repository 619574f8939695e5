package io.latchkey;

import java.time.Duration;
import java.util.Optional;

/**
 * A semaphore whose permits are named and leased: {@link #acquire(Duration)} returns a permit id, and a permit not
 * released within its lease returns to the semaphore by itself, so a crashed holder cannot leak permits.
 */
public interface PermitExpirableSemaphore {

    /** The semaphore's name. */
    String name();

    /** Takes a permit leased for {@code leaseTime}, waiting as needed, and returns its id. */
    String acquire(Duration leaseTime) throws InterruptedException;

    /** Takes a permit if one becomes available within {@code waitTime}. */
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
     * @throws UnsupportedOperationException if the backend does not renew permits (the default)
     */
    default String acquire() throws InterruptedException {
        throw new UnsupportedOperationException(
                "this backend does not renew permits by a watchdog; pass a lease time: " + this);
    }

    /**
     * Takes a watchdog-renewed permit (see {@link #acquire()}) if one becomes available within {@code waitTime}.
     *
     * @throws UnsupportedOperationException if the backend does not renew permits (the default)
     */
    default Optional<String> tryAcquire(Duration waitTime) throws InterruptedException {
        throw new UnsupportedOperationException(
                "this backend does not renew permits by a watchdog; pass a lease time: " + this);
    }

    /** Returns the permit with this id; {@code false} if it had expired or was already released. */
    boolean release(String permitId);

    /** Gives the permit a new lease from now; {@code false} if it had expired. */
    boolean updateLease(String permitId, Duration leaseTime);

    /** The permits available now (expired leases count as available). */
    int availablePermits();

    /** Sets the number of permits if it has never been set; returns whether it did. */
    boolean trySetPermits(int permits);

    /** Adds (or, if negative, removes) permits. */
    void addPermits(int permits);
}
