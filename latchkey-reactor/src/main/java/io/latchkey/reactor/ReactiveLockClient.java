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

    /**
     * Wraps {@code client}, running waiting calls on {@link Schedulers#boundedElastic()}.
     *
     * @param client the client to wrap; it stays the caller's to close
     * @return the reactive view of {@code client}
     * @throws NullPointerException if {@code client} is null
     */
    public static ReactiveLockClient of(LockClient client) {
        return new ReactiveLockClient(client, Schedulers.boundedElastic());
    }

    /**
     * Wraps {@code client}, running waiting calls on {@code scheduler}.
     *
     * @param client the client to wrap; it stays the caller's to close
     * @param scheduler where blocking calls run; it must allow blocking (not {@code Schedulers.parallel()})
     * @return the reactive view of {@code client}
     * @throws NullPointerException if an argument is null
     */
    public static ReactiveLockClient of(LockClient client, Scheduler scheduler) {
        return new ReactiveLockClient(client, scheduler);
    }

    /** {@return the wrapped client} */
    public LockClient client() {
        return client;
    }

    /**
     * Returns the reactive view of {@link LockClient#fencedStore(String) client.fencedStore(lockName)}.
     *
     * @param lockName the name of the lock that guards the store
     * @return a view of the store
     * @throws IllegalArgumentException if the name is invalid
     * @throws UnsupportedOperationException if the backend has no fenced store
     */
    public ReactiveFencedStore fencedStore(String lockName) {
        return new ReactiveFencedStore(client.fencedStore(lockName));
    }

    /**
     * Returns the reactive view of {@link LockClient#lock(String) client.lock(name)}.
     *
     * @param name the lock's name
     * @return a view of the reentrant lock, owned by leases
     * @throws IllegalArgumentException if the name is invalid (thrown here, not signalled)
     */
    public ReactiveLock lock(String name) {
        return new ReactiveLock(client.lock(name), scheduler);
    }

    /**
     * Returns the reactive view of {@link LockClient#fairLock(String) client.fairLock(name)}.
     *
     * @param name the lock's name
     * @return a view of the fair lock, owned by leases
     * @throws IllegalArgumentException if the name is invalid
     * @throws UnsupportedOperationException if the backend has no fair locks
     */
    public ReactiveLock fairLock(String name) {
        return new ReactiveLock(client.fairLock(name), scheduler);
    }

    /**
     * Returns the reactive view of {@link LockClient#readWriteLock(String) client.readWriteLock(name)}.
     *
     * @param name the lock's name
     * @return a view of the read-write lock
     * @throws IllegalArgumentException if the name is invalid
     * @throws UnsupportedOperationException if the backend has no read-write locks
     */
    public ReactiveReadWriteLock readWriteLock(String name) {
        return new ReactiveReadWriteLock(client.readWriteLock(name), scheduler);
    }

    /**
     * Returns the reactive view of {@link LockClient#semaphore(String) client.semaphore(name)}.
     *
     * @param name the semaphore's name
     * @return a view of the semaphore
     * @throws IllegalArgumentException if the name is invalid
     * @throws UnsupportedOperationException if the backend has no semaphores
     */
    public ReactiveSemaphore semaphore(String name) {
        return new ReactiveSemaphore(client.semaphore(name), scheduler);
    }

    /**
     * Returns the reactive view of {@link LockClient#permitExpirableSemaphore(String)
     * client.permitExpirableSemaphore(name)}.
     *
     * @param name the semaphore's name
     * @return a view of the permit-expirable semaphore
     * @throws IllegalArgumentException if the name is invalid
     * @throws UnsupportedOperationException if the backend has no permit-expirable semaphores
     */
    public ReactivePermitExpirableSemaphore permitExpirableSemaphore(String name) {
        return new ReactivePermitExpirableSemaphore(client.permitExpirableSemaphore(name), scheduler);
    }

    /**
     * Returns the reactive view of {@link LockClient#countDownLatch(String) client.countDownLatch(name)}.
     *
     * @param name the latch's name
     * @return a view of the count-down latch
     * @throws IllegalArgumentException if the name is invalid
     * @throws UnsupportedOperationException if the backend has no count-down latches
     */
    public ReactiveCountDownLatch countDownLatch(String name) {
        return new ReactiveCountDownLatch(client.countDownLatch(name), scheduler);
    }
}
