package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The Redis synchronizers beyond the plain lock (read-write lock, fair lock, …), created once per client on the
 * client's one command connection, pub/sub connection and timer.
 */
final class RedisSynchronizers {

    /**
     * The longest the server remembers a waiter (a fair lock's queue entry, a writer's intent) that stopped asking:
     * a crashed waiter delays the others by at most this. Waiters ask again every third of it.
     */
    static final Duration MAX_WAITER_HEARTBEAT = Duration.ofSeconds(5);

    private final ClientOptions options;
    private final ScriptExecutor executor;
    private final UnlockSubscriptions subscriptions;
    private final ScheduledExecutorService scheduler;
    private final long heartbeatMillis;
    private final RedisReadWriteLockOps readOps;
    private final RedisReadWriteLockOps writeOps;
    private final RedisReadWriteLockOps readerPreferenceReadOps;
    private final RedisReadWriteLockOps readerPreferenceWriteOps;
    private final RedisFairLockOps fairOps;
    private final RedisSemaphoreOps semaphoreOps;
    private final RedisPermitExpirableSemaphoreOps permitOps;
    private final RedisCountDownLatchOps latchOps;
    private final ReentrantLock spinLock = new ReentrantLock();
    private SpinLockEngine spinEngine; // guarded by spinLock
    private final Map<List<Long>, RemoteLockOps> spinOps = new HashMap<>(); // guarded by spinLock
    private boolean closed; // guarded by spinLock

    RedisSynchronizers(ClientOptions options, ScriptExecutor executor, UnlockSubscriptions subscriptions,
                       ScheduledExecutorService scheduler, String address, String clientId) {
        this.options = options;
        this.executor = executor;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        Duration watchdog = options.watchdogTimeout();
        this.heartbeatMillis = Math.max(30, (watchdog.compareTo(MAX_WAITER_HEARTBEAT) < 0 ? watchdog
                : MAX_WAITER_HEARTBEAT).toMillis());
        KeyCache<RedisReadWriteLockOps.Keys> rwKeys =
                new KeyCache<>(name -> new RedisReadWriteLockOps.Keys(options.namespace(), name,
                        executor.cluster()));
        this.readOps = new RedisReadWriteLockOps(true, true, options.namespace(), executor, subscriptions,
                scheduler, heartbeatMillis, rwKeys);
        this.writeOps = new RedisReadWriteLockOps(false, true, options.namespace(), executor, subscriptions,
                scheduler, heartbeatMillis, rwKeys);
        this.readerPreferenceReadOps = new RedisReadWriteLockOps(true, false, options.namespace(), executor,
                subscriptions, scheduler, heartbeatMillis, rwKeys);
        this.readerPreferenceWriteOps = new RedisReadWriteLockOps(false, false, options.namespace(), executor,
                subscriptions, scheduler, heartbeatMillis, rwKeys);
        long recheck = Math.max(1, heartbeatMillis / 3);
        this.semaphoreOps = new RedisSemaphoreOps(options.namespace(), executor, subscriptions, recheck);
        this.permitOps = new RedisPermitExpirableSemaphoreOps(options.namespace(), executor, subscriptions, recheck);
        this.latchOps = new RedisCountDownLatchOps(options.namespace(), executor, subscriptions, recheck);
        this.fairOps = new RedisFairLockOps(options.namespace(), clientId, executor, subscriptions, scheduler,
                heartbeatMillis);
    }

    RedisFairLockOps fairOps() {
        return fairOps;
    }

    RedisReadWriteLockOps readOps() {
        return readOps;
    }

    RedisReadWriteLockOps writeOps() {
        return writeOps;
    }

    /** The read half of the reader-preference read-write lock (waiting writers do not hold readers back). */
    RedisReadWriteLockOps readerPreferenceReadOps() {
        return readerPreferenceReadOps;
    }

    /** The write half of the reader-preference read-write lock (registers no intent while waiting). */
    RedisReadWriteLockOps readerPreferenceWriteOps() {
        return readerPreferenceWriteOps;
    }

    /** The remote half of the client's semaphores (the engine waits; a re-check every third of the heartbeat). */
    RedisSemaphoreOps semaphoreOps() {
        return semaphoreOps;
    }

    RedisCountDownLatchOps countDownLatchOps() {
        return latchOps;
    }

    RedisPermitExpirableSemaphoreOps permitExpirableSemaphoreOps() {
        return permitOps;
    }

    /** Default first backoff of a spin lock's waiter. */
    static final Duration SPIN_INITIAL_BACKOFF = Duration.ofMillis(4);
    /** Default longest backoff of a spin lock's waiter. */
    static final Duration SPIN_MAX_BACKOFF = Duration.ofMillis(128);

    /**
     * The most distinct backoff pairs one client keeps spin ops for: each pair is one ops instance for the client's
     * lifetime (the engine keys its waiters by it), so a pair computed per call must not grow without bound.
     */
    static final int MAX_SPIN_BACKOFFS = 64;

    /**
     * A spin lock with the default backoff; the spin engine is created on first use, on the spin ops as
     * {@code wrap} decorates them (replica acknowledgement).
     */
    DistributedLock spinLock(String name, RedisLockOps lockOps, TimeSource time, UnaryOperator<RemoteLockOps> wrap) {
        return spinEngine(lockOps, time, wrap).lock(name);
    }

    /**
     * A spin lock with its own backoff, on the same spin engine as the default ones (one ops instance per distinct
     * backoff pair).
     */
    DistributedLock spinLock(String name, RedisLockOps lockOps, TimeSource time, UnaryOperator<RemoteLockOps> wrap,
                             long initialBackoffNanos, long maxBackoffNanos) {
        SpinLockEngine c = spinEngine(lockOps, time, wrap);
        List<Long> key = List.of(initialBackoffNanos, maxBackoffNanos);
        RemoteLockOps ops;
        spinLock.lock();
        try {
            ops = spinOps.get(key);
            if (ops == null) {
                if (spinOps.size() >= MAX_SPIN_BACKOFFS) {
                    throw new IllegalArgumentException(String.format(
                            "a client keeps at most %d distinct spin lock backoffs but was asked for another "
                                    + "(%d ns..%d ns); reuse a few configurations", MAX_SPIN_BACKOFFS,
                            initialBackoffNanos, maxBackoffNanos));
                }
                ops = wrap.apply(new RedisSpinLockOps(lockOps, scheduler, initialBackoffNanos, maxBackoffNanos));
                spinOps.put(key, ops);
            }
        } finally {
            spinLock.unlock();
        }
        return c.withBackoff(name, ops);
    }

    private SpinLockEngine spinEngine(RedisLockOps lockOps, TimeSource time, UnaryOperator<RemoteLockOps> wrap) {
        spinLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("client closed");
            }
            if (spinEngine == null) {
                spinEngine = new SpinLockEngine(options, time, wrap.apply(new RedisSpinLockOps(lockOps, scheduler,
                        SPIN_INITIAL_BACKOFF.toNanos(), SPIN_MAX_BACKOFF.toNanos())));
            }
            return spinEngine;
        } finally {
            spinLock.unlock();
        }
    }

    /**
     * Closes the spin engine (its holds turn lost, as the client's own do); the waits of every other primitive,
     * semaphores and latches included, end with the client's engine.
     */
    void close() {
        SpinLockEngine c;
        spinLock.lock();
        try {
            closed = true;
            c = spinEngine;
        } finally {
            spinLock.unlock();
        }
        if (c != null) {
            c.close();
        }
    }

    long heartbeatMillis() {
        return heartbeatMillis;
    }
}
