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

    /** {@return the lock's name, as given to the client} */
    public String name() {
        return lock.name();
    }

    /** {@return the underlying lock, for the thread-owned API or inspection} */
    public DistributedLock unwrap() {
        return lock;
    }

    /**
     * Acquires a watchdog-renewed lease, waiting as long as needed, without blocking a thread.
     *
     * @return a Mono of the new lease, which the subscriber must release; it fails with
     *         {@link io.latchkey.LockUnavailableException} if the backend cannot be reached or the client closes
     */
    public Mono<LockLease> acquire() {
        return Acquisitions.fromFuture(lock::acquireAsync, ReactiveLock::releaseQuietly).publishOn(scheduler);
    }

    /**
     * Acquires a lease of fixed length {@code leaseTime} (not renewed), waiting as long as needed on a thread of
     * the scheduler.
     *
     * @param leaseTime how long after the acquire the lock expires on the server; positive
     * @return a Mono of the new lease; it fails with {@link IllegalArgumentException} if {@code leaseTime} is not
     *         positive
     * @throws NullPointerException if {@code leaseTime} is null
     */
    public Mono<LockLease> acquire(Duration leaseTime) {
        Objects.requireNonNull(leaseTime, "leaseTime");
        return Acquisitions.blocking(scheduler, () -> lock.acquire(leaseTime), ReactiveLock::releaseQuietly);
    }

    /**
     * Acquires a watchdog-renewed lease if the lock becomes free within {@code waitTime}, without blocking a thread.
     *
     * @param waitTime how long to wait at most; zero makes a single attempt
     * @return a Mono of the new lease, or an empty Mono if the lock was still held when the wait ran out
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Mono<LockLease> tryAcquire(Duration waitTime) {
        return tryAcquire(waitTime, null);
    }

    /**
     * Acquires a lease if the lock becomes free within {@code waitTime}, without blocking a thread.
     *
     * @param waitTime how long to wait at most; zero makes a single attempt
     * @param leaseTime how long after the acquire the lock expires on the server, or {@code null} for a
     *        watchdog-renewed lease
     * @return a Mono of the new lease, or an empty Mono if the lock was still held when the wait ran out
     * @throws NullPointerException if {@code waitTime} is null
     */
    public Mono<LockLease> tryAcquire(Duration waitTime, Duration leaseTime) {
        Objects.requireNonNull(waitTime, "waitTime");
        return Acquisitions.<Optional<LockLease>>fromFuture(() -> lock.tryAcquireAsync(waitTime, leaseTime),
                        lease -> lease.ifPresent(ReactiveLock::releaseQuietly))
                .flatMap(Mono::justOrEmpty)
                .publishOn(scheduler);
    }

    /**
     * Releases {@code lease} when subscribed; releasing an already released lease does nothing.
     *
     * @param lease a lease of this lock
     * @return a Mono that completes when the lock is released, or fails with {@link LockLostException} if the lease
     *         had been lost
     * @throws NullPointerException if {@code lease} is null
     */
    public Mono<Void> release(LockLease lease) {
        Objects.requireNonNull(lease, "lease");
        return Mono.defer(() -> Mono.fromCompletionStage(lease.releaseAsync())).publishOn(scheduler);
    }

    /**
     * Holds a watchdog-renewed lease while the Mono {@code body} returns runs; see the class comment.
     *
     * @param <T> the type of the body's value
     * @param body given the lease, returns the work to run under the lock; called once per subscription
     * @return a Mono of the body's value; it fails with {@link LockLostException} if the lease was lost meanwhile
     * @throws NullPointerException if {@code body} is null
     */
    public <T> Mono<T> withLock(Function<? super LockLease, ? extends Mono<? extends T>> body) {
        Objects.requireNonNull(body, "body");
        return this.<T>withLease(acquire(), lease -> Flux.<T>from(body.apply(lease))).singleOrEmpty();
    }

    /**
     * Holds a watchdog-renewed lease while the Flux (any Publisher) {@code body} returns runs; see the class
     * comment.
     *
     * @param <T> the type of the body's elements
     * @param body given the lease, returns the work to run under the lock; called once per subscription
     * @return a Flux of the body's elements; it fails with {@link LockLostException} if the lease was lost meanwhile
     * @throws NullPointerException if {@code body} is null
     */
    public <T> Flux<T> withLockMany(Function<? super LockLease, ? extends Publisher<? extends T>> body) {
        Objects.requireNonNull(body, "body");
        return withLease(acquire(), body);
    }

    /**
     * Runs {@code body} as {@link #withLock(Function)} does, with a lease that {@link #tryAcquire(Duration)} took.
     *
     * @param <T> the type of the body's value
     * @param waitTime how long to wait for the lock at most; zero makes a single attempt
     * @param body given the lease, returns the work to run under the lock; not called if no lease was taken
     * @return a Mono of the body's value, or an empty Mono if the lock was still held when the wait ran out
     * @throws NullPointerException if an argument is null
     */
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
