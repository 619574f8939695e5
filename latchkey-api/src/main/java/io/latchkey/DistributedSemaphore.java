package io.latchkey;

import java.time.Duration;

/**
 * A counting semaphore shared across clients, shaped like {@link java.util.concurrent.Semaphore}. Permits are not
 * owned: any client may release. A semaphore starts with no permits until {@link #trySetPermits} or
 * {@link #addPermits} gives it some.
 *
 * <pre>{@code
 * DistributedSemaphore slots = client.semaphore("downloads");
 * slots.trySetPermits(10);
 * slots.acquire();
 * try { download(); } finally { slots.release(); }
 * }</pre>
 */
public interface DistributedSemaphore {

    /** The semaphore's name. */
    String name();

    /** Takes one permit, waiting as needed. */
    void acquire() throws InterruptedException;

    /** Takes {@code permits} permits at once, waiting as needed. */
    void acquire(int permits) throws InterruptedException;

    /** Takes one permit if one is available now. */
    boolean tryAcquire();

    /** Takes {@code permits} permits if they become available within {@code waitTime}. */
    boolean tryAcquire(int permits, Duration waitTime) throws InterruptedException;

    /** Returns one permit. */
    void release();

    /** Returns {@code permits} permits. */
    void release(int permits);

    /** The permits available now. */
    int availablePermits();

    /** Sets the permits if the semaphore has never been set; returns whether it did. */
    boolean trySetPermits(int permits);

    /** Adds (or, if negative, removes) permits. */
    void addPermits(int permits);

    /** Takes every available permit and returns how many. */
    int drainPermits();
}
