package io.latchkey.reactor;

import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A semaphore whose permits are ids that expire, for reactive code. Acquire and release use the semaphore's futures
 * ({@link PermitExpirableSemaphore#acquireAsync}: no thread waits) on every backend that offers them; other calls,
 * and every call on a backend without them, run on the scheduler given to {@link ReactiveLockClient}. Cancelling a
 * pending acquisition withdraws it (cancels the future, or interrupts the blocking wait); a permit acquired
 * concurrently with the cancellation is released again.
 */
public final class ReactivePermitExpirableSemaphore {

    private final PermitExpirableSemaphore semaphore;
    private final Scheduler scheduler;

    ReactivePermitExpirableSemaphore(PermitExpirableSemaphore semaphore, Scheduler scheduler) {
        this.semaphore = semaphore;
        this.scheduler = scheduler;
    }

    /** {@return the semaphore's name, as given to the client} */
    public String name() {
        return semaphore.name();
    }

    /** {@return the underlying semaphore, for blocking calls or inspection} */
    public PermitExpirableSemaphore unwrap() {
        return semaphore;
    }

    /**
     * Takes a permit leased for {@code leaseTime}, waiting as long as needed.
     *
     * @param leaseTime how long the permit lives unless released or extended; positive
     * @return a Mono of the permit's id; it fails with {@link IllegalArgumentException} if {@code leaseTime} is not
     *         positive
     * @throws NullPointerException if {@code leaseTime} is null
     */
    public Mono<String> acquire(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        return Acquisitions.preferFuture(() -> semaphore.acquireAsync(leaseTime),
                () -> Acquisitions.blocking(scheduler, () -> semaphore.acquire(leaseTime), semaphore::release),
                semaphore::releaseAsync);
    }

    /**
     * Takes a permit leased for {@code leaseTime} if one becomes available within {@code waitTime}.
     *
     * @param waitTime how long to wait; zero or negative tries once
     * @param leaseTime how long the permit lives unless released or extended; positive
     * @return a Mono of the permit's id, or an empty Mono if none became available in time
     * @throws NullPointerException if an argument is null
     */
    public Mono<String> tryAcquire(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        Objects.requireNonNull(leaseTime, "leaseTime");
        return Acquisitions.<Optional<String>>preferFuture(() -> semaphore.tryAcquireAsync(waitTime, leaseTime),
                () -> Acquisitions.blocking(scheduler, () -> semaphore.tryAcquire(waitTime, leaseTime),
                        id -> id.ifPresent(semaphore::release)),
                id -> id.ifPresent(semaphore::releaseAsync)).flatMap(Mono::justOrEmpty);
    }

    /**
     * Returns the permit {@code permitId}, from any thread or client, waking waiters.
     *
     * @param permitId an id returned by an acquire
     * @return a Mono of {@code true} if the permit was still held, {@code false} if it had expired or was released
     *         before
     * @throws NullPointerException if {@code permitId} is null
     */
    public Mono<Boolean> release(String permitId) {
        Objects.requireNonNull(permitId, "permitId");
        return Acquisitions.preferFuture(() -> semaphore.releaseAsync(permitId),
                () -> Acquisitions.blocking(scheduler, () -> semaphore.release(permitId)));
    }

    /**
     * Gives the permit a new lease of {@code leaseTime} from now (a watchdog-renewed permit then stops being
     * renewed), on a thread of the scheduler.
     *
     * @param permitId an id returned by an acquire
     * @param leaseTime the new lease, from now; positive
     * @return a Mono of {@code true} if the permit was held, {@code false} if it had expired or was released
     */
    public Mono<Boolean> updateLease(String permitId, Duration leaseTime) {
        return Acquisitions.blocking(scheduler, () -> semaphore.updateLease(permitId, leaseTime));
    }

    /**
     * Sets the semaphore's permits if it has never been set; of clients racing to set it, one wins.
     *
     * @param permits the total permits, zero or more
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
     * Reads the permits available now: the total less the permits held and not expired.
     *
     * @return a Mono of a snapshot of the available permits
     */
    public Mono<Integer> availablePermits() {
        return Acquisitions.blocking(scheduler, semaphore::availablePermits);
    }

    /**
     * Holds one permit of {@code leaseTime} while the publisher {@code body} returns runs; the permit is released
     * when it completes, fails or is cancelled.
     *
     * @param <T> the type of the body's elements
     * @param leaseTime how long the permit lives unless released first; positive
     * @param body given the permit's id, returns the work to run while it is held; called once per subscription
     * @return a Flux of the body's elements
     * @throws NullPointerException if an argument is null
     */
    public <T> Flux<T> withPermit(Duration leaseTime, Function<String, ? extends Publisher<? extends T>> body) {
        Objects.requireNonNull(body, "body");
        return Flux.usingWhen(acquire(leaseTime), id -> Flux.<T>from(body.apply(id)),
                this::release, (id, error) -> release(id), this::release);
    }

    @Override
    public String toString() {
        return "ReactivePermitExpirableSemaphore[" + semaphore.name() + "]";
    }
}
