package io.latchkey.reactor;

import io.latchkey.LockClient;
import java.util.Objects;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The Project Reactor view of a {@link LockClient}: every primitive with {@code Mono}-returning operations.
 *
 * <pre>{@code
 * ReactiveLockClient locks = ReactiveLockClient.of(client);
 * Mono<Receipt> receipt = locks.lock("order:" + id)
 *         .withLock(lease -> payments.charge(id, lease.fencingToken()));
 * }</pre>
 *
 * <p>Locks use the lease API (the owner is a lease, not a thread) and wait without blocking a thread where the
 * client offers that ({@code acquireAsync}, {@code tryAcquireAsync}); every other waiting call runs on the given
 * scheduler ({@link Schedulers#boundedElastic()} by default), never on the subscriber's thread, and is interrupted
 * when the subscription is cancelled. This object does not own the client: closing the client is the caller's job.
 */
public final class ReactiveLockClient {

    private final LockClient client;
    private final Scheduler scheduler;

    private ReactiveLockClient(LockClient client, Scheduler scheduler) {
        this.client = Objects.requireNonNull(client, "client");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    /** Waiting calls on {@link Schedulers#boundedElastic()}. */
    public static ReactiveLockClient of(LockClient client) {
        return new ReactiveLockClient(client, Schedulers.boundedElastic());
    }

    /** Waiting calls on {@code scheduler}, which must allow blocking. */
    public static ReactiveLockClient of(LockClient client, Scheduler scheduler) {
        return new ReactiveLockClient(client, scheduler);
    }

    public LockClient client() {
        return client;
    }

    public ReactiveLock lock(String name) {
        return new ReactiveLock(client.lock(name), scheduler);
    }

    public ReactiveLock fairLock(String name) {
        return new ReactiveLock(client.fairLock(name), scheduler);
    }

    public ReactiveReadWriteLock readWriteLock(String name) {
        return new ReactiveReadWriteLock(client.readWriteLock(name), scheduler);
    }

    public ReactiveSemaphore semaphore(String name) {
        return new ReactiveSemaphore(client.semaphore(name), scheduler);
    }

    public ReactivePermitExpirableSemaphore permitExpirableSemaphore(String name) {
        return new ReactivePermitExpirableSemaphore(client.permitExpirableSemaphore(name), scheduler);
    }

    public ReactiveCountDownLatch countDownLatch(String name) {
        return new ReactiveCountDownLatch(client.countDownLatch(name), scheduler);
    }
}
