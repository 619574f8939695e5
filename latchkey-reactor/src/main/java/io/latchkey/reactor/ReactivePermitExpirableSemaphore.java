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

    public String name() {
        return semaphore.name();
    }

    public PermitExpirableSemaphore unwrap() {
        return semaphore;
    }

    /** A permit id that expires after {@code leaseTime}, waiting as long as needed. */
    public Mono<String> acquire(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        return Acquisitions.preferFuture(() -> semaphore.acquireAsync(leaseTime),
                () -> Acquisitions.blocking(scheduler, () -> semaphore.acquire(leaseTime), semaphore::release),
                semaphore::releaseAsync);
    }

    /** A permit id if one becomes free within {@code waitTime}; else empty. */
    public Mono<String> tryAcquire(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        Objects.requireNonNull(leaseTime, "leaseTime");
        return Acquisitions.<Optional<String>>preferFuture(() -> semaphore.tryAcquireAsync(waitTime, leaseTime),
                () -> Acquisitions.blocking(scheduler, () -> semaphore.tryAcquire(waitTime, leaseTime),
                        id -> id.ifPresent(semaphore::release)),
                id -> id.ifPresent(semaphore::releaseAsync)).flatMap(Mono::justOrEmpty);
    }

    /** {@code true} if the permit was still held (not expired, not released before). */
    public Mono<Boolean> release(String permitId) {
        Objects.requireNonNull(permitId, "permitId");
        return Acquisitions.preferFuture(() -> semaphore.releaseAsync(permitId),
                () -> Acquisitions.blocking(scheduler, () -> semaphore.release(permitId)));
    }

    public Mono<Boolean> updateLease(String permitId, Duration leaseTime) {
        return Acquisitions.blocking(scheduler, () -> semaphore.updateLease(permitId, leaseTime));
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

    public Mono<Integer> availablePermits() {
        return Acquisitions.blocking(scheduler, semaphore::availablePermits);
    }

    /** Holds one permit of {@code leaseTime} while the publisher {@code body} returns runs. */
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
