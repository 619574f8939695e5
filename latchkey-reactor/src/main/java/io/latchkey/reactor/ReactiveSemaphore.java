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

    public String name() {
        return semaphore.name();
    }

    public DistributedSemaphore unwrap() {
        return semaphore;
    }

    /** Completes when {@code permits} permits were acquired, waiting as long as needed. */
    public Mono<Void> acquire(int permits) {
        return Acquisitions.preferFuture(() -> semaphore.acquireAsync(permits),
                () -> Acquisitions.blocking(scheduler, () -> {
                    semaphore.acquire(permits);
                    return Boolean.TRUE;
                }, acquired -> semaphore.release(permits)).then());
    }

    /** {@code true} if {@code permits} permits were acquired within {@code waitTime}. */
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

    public Mono<Void> release(int permits) {
        return Acquisitions.preferFuture(() -> semaphore.releaseAsync(permits),
                () -> Acquisitions.blocking(scheduler, () -> {
                    semaphore.release(permits);
                    return Boolean.TRUE;
                }).then());
    }

    public Mono<Integer> availablePermits() {
        return Acquisitions.blocking(scheduler, semaphore::availablePermits);
    }

    public Mono<Boolean> trySetPermits(int permits) {
        return Acquisitions.blocking(scheduler, () -> semaphore.trySetPermits(permits));
    }

    public Mono<Void> addPermits(int permits) {
        return Acquisitions.blocking(scheduler, () -> {
            semaphore.addPermits(permits);
            return Boolean.TRUE;
        }).then();
    }

    public Mono<Integer> drainPermits() {
        return Acquisitions.blocking(scheduler, semaphore::drainPermits);
    }

    /**
     * Holds {@code permits} permits while the publisher {@code body} supplies runs; released when it completes, fails
     * or is cancelled.
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
