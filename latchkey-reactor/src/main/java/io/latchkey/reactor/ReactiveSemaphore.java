package io.latchkey.reactor;

import io.latchkey.DistributedSemaphore;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A distributed semaphore for reactive code. Permits are not owned by a thread (as with
 * {@link java.util.concurrent.Semaphore}), so any thread may release them. Acquire and release use the semaphore's
 * futures ({@link DistributedSemaphore#acquireAsync}: no thread waits) on every backend that offers them; other
 * calls, and every call on a backend without them, run on the scheduler given to {@link ReactiveLockClient}.
 * Cancelling a pending acquisition withdraws it (cancels the future, or interrupts the blocking wait), and permits
 * acquired concurrently with the cancellation are released again.
 */
public final class ReactiveSemaphore {

    private final DistributedSemaphore semaphore;
    private final Scheduler scheduler;

    ReactiveSemaphore(DistributedSemaphore semaphore, Scheduler scheduler) {
        this.semaphore = semaphore;
        this.scheduler = scheduler;
    }

    /** {@return the semaphore's name, as given to the client} */
    public String name() {
        return semaphore.name();
    }

    /** {@return the underlying semaphore, for blocking calls or inspection} */
    public DistributedSemaphore unwrap() {
        return semaphore;
    }

    /**
     * Acquires {@code permits} permits, waiting as long as needed.
     *
     * @param permits how many permits to take, all at once; at least 1
     * @return a Mono that completes when the permits were acquired; it fails with
     *         {@link IllegalArgumentException} if {@code permits < 1}
     */
    public Mono<Void> acquire(int permits) {
        return Acquisitions.preferFuture(() -> semaphore.acquireAsync(permits),
                () -> Acquisitions.blocking(scheduler, () -> {
                    semaphore.acquire(permits);
                    return Boolean.TRUE;
                }, acquired -> semaphore.release(permits)).then());
    }

    /**
     * Acquires {@code permits} permits if they become available within {@code waitTime}.
     *
     * @param permits how many permits to take, all at once; at least 1
     * @param waitTime how long to wait at most; zero makes a single attempt
     * @return a Mono of {@code true} if the permits were acquired, {@code false} if the wait ran out
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Mono<Boolean> tryAcquire(int permits, Duration waitTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        return Acquisitions.preferFuture(() -> semaphore.tryAcquireAsync(permits, waitTime),
                        () -> Acquisitions.blocking(scheduler,
                                () -> semaphore.tryAcquire(permits, waitTime) ? Boolean.TRUE : null,
                                acquired -> semaphore.release(permits)),
                        acquired -> {
                            if (acquired) {
                                semaphore.releaseAsync(permits);
                            }
                        })
                .defaultIfEmpty(Boolean.FALSE);
    }

    /**
     * Returns {@code permits} permits to the semaphore, waking waiters; any thread may release.
     *
     * @param permits how many permits to return; at least 1
     * @return a Mono that completes when the permits were returned
     */
    public Mono<Void> release(int permits) {
        return Acquisitions.preferFuture(() -> semaphore.releaseAsync(permits),
                () -> Acquisitions.blocking(scheduler, () -> {
                    semaphore.release(permits);
                    return Boolean.TRUE;
                }).then());
    }

    /**
     * Reads the permits available now, on a thread of the scheduler.
     *
     * @return a Mono of a snapshot of the available permits (0 for a semaphore never set)
     */
    public Mono<Integer> availablePermits() {
        return Acquisitions.blocking(scheduler, semaphore::availablePermits);
    }

    /**
     * Sets the semaphore's permits if it has never been set; of clients racing to set it, one wins.
     *
     * @param permits the initial permits, zero or more
     * @return a Mono of whether this call set them
     */
    public Mono<Boolean> trySetPermits(int permits) {
        return Acquisitions.blocking(scheduler, () -> semaphore.trySetPermits(permits));
    }

    /**
     * Adds permits (waking waiters), or removes available permits if {@code permits} is negative.
     *
     * @param permits how many to add; negative to remove
     * @return a Mono that completes when the change is made
     */
    public Mono<Void> addPermits(int permits) {
        return Acquisitions.blocking(scheduler, () -> {
            semaphore.addPermits(permits);
            return Boolean.TRUE;
        }).then();
    }

    /**
     * Takes every permit available now; never waits for more.
     *
     * @return a Mono of the permits taken, 0 if none were available
     */
    public Mono<Integer> drainPermits() {
        return Acquisitions.blocking(scheduler, semaphore::drainPermits);
    }

    /**
     * Holds {@code permits} permits while the publisher {@code body} supplies runs; released when it completes, fails
     * or is cancelled.
     *
     * @param <T> the type of the body's elements
     * @param permits how many permits to hold; at least 1
     * @param body supplies the work to run while the permits are held; called once per subscription
     * @return a Flux of the body's elements
     * @throws NullPointerException if {@code body} is null
     */
    public <T> Flux<T> withPermits(int permits, Supplier<? extends Publisher<? extends T>> body) {
        Objects.requireNonNull(body, "body");
        return Flux.usingWhen(acquire(permits).thenReturn(permits), p -> Flux.<T>from(body.get()),
                p -> release(p), (p, error) -> release(p), p -> release(p));
    }

    @Override
    public String toString() {
        return "ReactiveSemaphore[" + semaphore.name() + "]";
    }
}
