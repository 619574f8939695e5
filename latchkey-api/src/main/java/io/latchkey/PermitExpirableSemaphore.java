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
