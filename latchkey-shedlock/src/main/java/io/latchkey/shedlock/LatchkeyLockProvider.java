package io.latchkey.shedlock;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import java.util.concurrent.atomic.AtomicInteger;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} over any Latchkey {@link LockClient}: a project on
 * ShedLock switches to Latchkey by replacing its {@code LockProvider} bean; its {@code @SchedulerLock} annotations,
 * {@code DefaultLockingTaskExecutor} calls and {@code LockExtender} calls stay as they are.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(LockClient client) {
 *     return new LatchkeyLockProvider(client);
 * }
 * }</pre>
 *
 * <p><b>Semantics</b> (ShedLock's, on Latchkey's lock):
 * <ul>
 *   <li>{@link #lock} tries the lock named {@link LockConfiguration#getName()} once, without waiting: empty when
 *       another node (or another task of this one) holds it.</li>
 *   <li>{@code lockAtMostFor}: the lock is released when it has passed since acquisition, even if the task still
 *       runs (as ShedLock's lock record expires then). While held, the lease is renewed by the client's watchdog; a
 *       node that <em>crashes</em> therefore frees the lock after the client's
 *       {@link io.latchkey.ClientOptions#watchdogTimeout() watchdogTimeout} (default 30 s), not after
 *       {@code lockAtMostFor}: set the watchdog timeout at or below your shortest {@code lockAtMostFor} if a crashed
 *       node must free its locks sooner.</li>
 *   <li>{@code lockAtLeastFor}: {@link SimpleLock#unlock()} before it has passed keeps the lock until then (released
 *       by this provider's timer thread).</li>
 *   <li>{@link SimpleLock#extend(Duration, Duration)} moves both limits, counted from now, and returns the new
 *       handle; the old one can then no longer be used ({@link IllegalStateException}). Empty when the lock was
 *       already released or lost. No remote call: the watchdog keeps the lease.</li>
 *   <li>A lock lost while held (renewal failed, session expired) is logged at WARN; unlocking it then does not
 *       throw, because ShedLock has no way to tell the task.</li>
 * </ul>
 *
 * <p><b>Threads.</b> One daemon thread, {@code latchkey-shedlock-timer}, started on first use, enforces the two
 * limits; {@link #close()} stops it and releases every lock this provider still holds (Spring calls it when the
 * context closes). The provider does not close the client.
 *
 * <p><b>Memory effects</b> are those of the lock: what a task did before its release happens-before what the next
 * holder's task does after acquiring.
 */
public class LatchkeyLockProvider implements ExtensibleLockProvider, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LatchkeyLockProvider.class);
    private static final AtomicInteger INSTANCES = new AtomicInteger();

    private final LockClient client;
    private final Set<Held> held = ConcurrentHashMap.newKeySet();
    private final int instance = INSTANCES.incrementAndGet();
    private volatile ScheduledThreadPoolExecutor timer;
    private static final AtomicReferenceFieldUpdater<LatchkeyLockProvider, ScheduledThreadPoolExecutor> TIMER =
            AtomicReferenceFieldUpdater.newUpdater(LatchkeyLockProvider.class, ScheduledThreadPoolExecutor.class, "timer");
    private volatile boolean closed;

    /**
     * Creates a provider over {@code client}.
     *
     * @param client the lock client whose locks back every ShedLock lock; it stays the caller's (this provider
     *        never closes it)
     * @throws NullPointerException if {@code client} is null
     */
    public LatchkeyLockProvider(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Objects.requireNonNull(configuration, "configuration");
        if (closed) {
            throw new IllegalStateException("LatchkeyLockProvider is closed");
        }
        Duration atMost = configuration.getLockAtMostFor();
        if (atMost.isZero() || atMost.isNegative()) {
            throw new IllegalArgumentException(String.format(
                    "lockAtMostFor of lock '%s' must be positive but was %s", configuration.getName(), atMost));
        }
        DistributedLock lock = client.lock(configuration.getName());
        Optional<LockLease> lease;
        try {
            lease = lock.tryAcquire(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        if (lease.isEmpty()) {
            return Optional.empty();
        }
        Held h = new Held(lease.get());
        lease.get().onLost(() -> LOG.warn("ShedLock lock '{}' (fencing token {}) was lost while held",
                h.lease.lockName(), h.lease.fencingToken()));
        held.add(h);
        Handle handle = new Handle(h);
        h.schedule(atMost, configuration.getLockAtLeastFor());
        return Optional.of(handle);
    }

    /** Stops the timer thread and releases every lock this provider still holds. */
    @Override
    public void close() {
        closed = true;
        ScheduledThreadPoolExecutor t = timer;
        if (t != null) {
            t.shutdownNow();
            try {
                t.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (Held h : held) {
            h.releaseNow();
        }
    }

    private ScheduledThreadPoolExecutor timer() {
        ScheduledThreadPoolExecutor t = timer;
        if (t == null) {
            // no lock: a pool that loses the race never started a thread (threads start with the first task)
            ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "latchkey-shedlock-timer-" + instance);
                thread.setDaemon(true);
                return thread;
            });
            created.setRemoveOnCancelPolicy(true);
            if (TIMER.compareAndSet(this, null, created)) {
                t = created;
            } else {
                created.shutdownNow();
                t = timer;
            }
        }
        return t;
    }

    /** One acquisition: the lease, its limits, and whether the task unlocked it already. */
    private final class Held {
        final LockLease lease;
        private final AtomicInteger state = new AtomicInteger(); // 0 held, 1 unlocked (maybe waiting), 2 released
        private volatile long atLeastUntilNanos;
        private volatile ScheduledFuture<?> atMostTimer;

        Held(LockLease lease) {
            this.lease = lease;
        }

        /** (Re)sets both limits, counted from now. */
        void schedule(Duration atMost, Duration atLeast) {
            long now = System.nanoTime();
            atLeastUntilNanos = now + atLeast.toNanos();
            ScheduledFuture<?> previous = atMostTimer;
            if (previous != null) {
                previous.cancel(false);
            }
            atMostTimer = later(this::expire, atMost.toNanos());
        }

        boolean isActive() {
            return state.get() == 0 && lease.isValid();
        }

        /** lockAtMostFor passed. */
        private void expire() {
            if (state.get() == 0) {
                LOG.warn("ShedLock lock '{}' reached its lockAtMostFor while the task still ran; releasing it",
                        lease.lockName());
            }
            releaseNow();
        }

        /** The task unlocked: release now or when lockAtLeastFor has passed. */
        void unlock() {
            if (!state.compareAndSet(0, 1)) {
                return;
            }
            ScheduledFuture<?> t = atMostTimer;
            if (t != null) {
                t.cancel(false);
            }
            long rest = atLeastUntilNanos - System.nanoTime();
            if (rest <= 0 || closed) {
                releaseNow();
            } else {
                later(this::releaseNow, rest);
            }
        }

        void releaseNow() {
            if (state.getAndSet(2) == 2) {
                return;
            }
            held.remove(this);
            ScheduledFuture<?> t = atMostTimer;
            if (t != null) {
                t.cancel(false);
            }
            try {
                lease.release();
            } catch (LockLostException e) {
                // reported by the onLost listener already
            } catch (LockUnavailableException e) {
                LOG.warn("ShedLock lock '{}' could not be released; it expires on the server: {}", lease.lockName(),
                        e.getMessage());
            }
        }

        private ScheduledFuture<?> later(Runnable action, long nanos) {
            try {
                return timer().schedule(action, nanos, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException closing) {
                releaseNow();
                return null;
            }
        }
    }

    /** The {@link SimpleLock} ShedLock holds; a new one per extension, the old one then spent. */
    private static final class Handle implements SimpleLock {
        private final Held held;
        private final AtomicInteger spent = new AtomicInteger(); // 0 usable, 1 unlocked or extended

        Handle(Held held) {
            this.held = held;
        }

        @Override
        public void unlock() {
            if (!spent.compareAndSet(0, 1)) {
                throw new IllegalStateException(String.format(
                        "lock '%s' was already unlocked or extended through this handle", held.lease.lockName()));
            }
            held.unlock();
        }

        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            Objects.requireNonNull(lockAtMostFor, "lockAtMostFor");
            Objects.requireNonNull(lockAtLeastFor, "lockAtLeastFor");
            if (lockAtMostFor.isZero() || lockAtMostFor.isNegative() || lockAtLeastFor.isNegative()
                    || lockAtLeastFor.compareTo(lockAtMostFor) > 0) {
                throw new IllegalArgumentException(String.format("extend of lock '%s' needs 0 <= lockAtLeastFor "
                        + "<= lockAtMostFor and lockAtMostFor > 0 but got %s and %s", held.lease.lockName(),
                        lockAtLeastFor, lockAtMostFor));
            }
            if (!spent.compareAndSet(0, 1)) {
                throw new IllegalStateException(String.format(
                        "lock '%s' was already unlocked or extended through this handle", held.lease.lockName()));
            }
            if (!held.isActive()) {
                return Optional.empty();
            }
            held.schedule(lockAtMostFor, lockAtLeastFor);
            return Optional.of(new Handle(held));
        }

        @Override
        public String toString() {
            return "LatchkeyLockProvider lock '" + held.lease.lockName() + "' token " + held.lease.fencingToken();
        }
    }
}
