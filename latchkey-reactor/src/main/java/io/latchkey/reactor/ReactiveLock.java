package io.latchkey.reactor;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A distributed lock for reactive code: {@link Mono}s of {@link LockLease}s. The owner of a hold is its lease, never
 * a thread, so acquiring on one thread and releasing on another is the normal case; the lease API is not reentrant
 * (each lease is one hold).
 *
 * <p><b>Nothing happens until subscription</b>, and each subscription acquires anew. <b>Cancelling</b> a pending
 * acquisition abandons its wait, and a lock taken concurrently with the cancellation is released, so a cancelled
 * subscriber never leaves a lock behind. A timed-out {@code tryAcquire} completes empty.
 *
 * <p>{@link #withLock(Function)} and {@link #withLockMany(Function)} hold the lock for the duration of a
 * {@code Mono}/{@code Flux} ({@code Mono.usingWhen}): released when it completes, fails or is cancelled; if the lease
 * is <b>lost</b> meanwhile (renewal failed, lease ran out, session expired), the body is cancelled and the result
 * fails with {@link LockLostException}. A release that finds the lock lost fails the result the same way ("lost
 * means told").
 *
 * <p>Leases without a lease time are renewed by the client's watchdog while held. {@link #acquire(Duration)} blocks
 * a thread of the scheduler given to {@link ReactiveLockClient} while it waits; the other acquisitions do not block
 * a thread. <b>Signals arrive on that scheduler</b>, never on the backend client's I/O thread, so the code that
 * follows may block (a Lettuce event loop blocked by a synchronous Redis call would deadlock).
 */
public final class ReactiveLock {

    private static final Logger LOG = LoggerFactory.getLogger(ReactiveLock.class);

    private final DistributedLock lock;
    private final Scheduler scheduler;

    ReactiveLock(DistributedLock lock, Scheduler scheduler) {
        this.lock = lock;
        this.scheduler = scheduler;
    }

    /** The lock's name. */
    public String name() {
        return lock.name();
    }

    /** The underlying lock (for the thread-owned API or inspection). */
    public DistributedLock unwrap() {
        return lock;
    }

    /** A watchdog-renewed lease, waiting as long as needed. */
    public Mono<LockLease> acquire() {
        return Acquisitions.fromFuture(lock::acquireAsync, ReactiveLock::releaseQuietly).publishOn(scheduler);
    }

    /** A lease of fixed length {@code leaseTime} (not renewed), waiting as long as needed. */
    public Mono<LockLease> acquire(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        return Acquisitions.blocking(scheduler, () -> lock.acquire(leaseTime), ReactiveLock::releaseQuietly);
    }

    /** A watchdog-renewed lease if the lock becomes free within {@code waitTime} (zero: try once); else empty. */
    public Mono<LockLease> tryAcquire(Duration waitTime) {
        return tryAcquire(waitTime, null);
    }

    /**
     * A lease of {@code leaseTime} ({@code null}: watchdog-renewed) if the lock becomes free within
     * {@code waitTime}; else empty.
     */
    public Mono<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        return Acquisitions.<Optional<LockLease>>fromFuture(() -> lock.tryAcquireAsync(waitTime, leaseTime),
                        lease -> lease.ifPresent(ReactiveLock::releaseQuietly))
                .flatMap(Mono::justOrEmpty)
                .publishOn(scheduler);
    }

    /** Releases {@code lease}; fails with {@link LockLostException} if it had been lost. */
    public Mono<Void> release(LockLease lease) {
        Objects.requireNonNull(lease, "lease");
        return Mono.defer(() -> Mono.fromCompletionStage(lease.releaseAsync())).publishOn(scheduler);
    }

    /** Holds a watchdog-renewed lease while the Mono {@code body} returns runs; see the class comment. */
    public <T> Mono<T> withLock(Function<? super LockLease, ? extends Mono<? extends T>> body) {
        Objects.requireNonNull(body, "body");
        return this.<T>withLease(acquire(), lease -> Flux.<T>from(body.apply(lease))).singleOrEmpty();
    }

    /** Holds a watchdog-renewed lease while the Flux (any Publisher) {@code body} returns runs. */
    public <T> Flux<T> withLockMany(Function<? super LockLease, ? extends Publisher<? extends T>> body) {
        Objects.requireNonNull(body, "body");
        return withLease(acquire(), body);
    }

    /** Like {@link #withLock(Function)} with a lease that {@link #tryAcquire(Duration)} took: empty if it took none. */
    public <T> Mono<T> tryWithLock(Duration waitTime, Function<? super LockLease, ? extends Mono<? extends T>> body) {
        Objects.requireNonNull(body, "body");
        return this.<T>withLease(tryAcquire(waitTime), lease -> Flux.<T>from(body.apply(lease))).singleOrEmpty();
    }

    private <T> Flux<T> withLease(Mono<LockLease> acquisition,
                                  Function<? super LockLease, ? extends Publisher<? extends T>> body) {
        return Flux.usingWhen(acquisition,
                lease -> Flux.<T>from(body.apply(lease))
                        .takeUntilOther(lost(lease))
                        .concatWith(Mono.defer(() -> lease.isValid() ? Mono.empty()
                                : Mono.error(new LockLostException(lease.lockName(), String.format(
                                        "lock '%s' was lost while it was held for a reactive body",
                                        lease.lockName()))))),
                this::release,
                (lease, error) -> release(lease).onErrorResume(releaseError -> {
                    error.addSuppressed(releaseError);
                    return Mono.empty();
                }),
                lease -> release(lease).onErrorResume(releaseError -> Mono.empty()));
    }

    private static Mono<Boolean> lost(LockLease lease) {
        return Mono.create(sink -> {
            Runnable listener = () -> sink.success(Boolean.TRUE);
            lease.onLost(listener);
            // a body that ends first must not leave its listener on the lease
            sink.onDispose(() -> lease.removeOnLost(listener));
        });
    }

    static void releaseQuietly(LockLease lease) {
        lease.releaseAsync().whenComplete((ok, error) -> {
            if (error != null) {
                LOG.debug("releasing abandoned lease of '{}' failed: {}", lease.lockName(), error.toString());
            }
        });
    }

    @Override
    public String toString() {
        return "ReactiveLock[" + lock.name() + "]";
    }
}
