package io.latchkey.redis;

import io.latchkey.ClientOptions;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.locks.ReentrantLock;
import io.latchkey.DistributedLock;
import io.latchkey.core.TimeSource;

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
    private final RedisFairLockOps fairOps;
    private final SyncWaits waits;
    // Shared by every RedisSemaphore of a name; an entry dropped by the cache's clearing only costs a second
    // remote waiter for that name, never a lost wake-up (each queue's head waits at the server).
    private final KeyCache<SemaphoreWaiters> semaphoreWaiters = new KeyCache<>(name -> new SemaphoreWaiters());
    private final ReentrantLock spinLock = new ReentrantLock();
    private SpinLockClient spinClient; // guarded by spinLock
    private boolean closed; // guarded by spinLock

    RedisSynchronizers(ClientOptions options, ScriptExecutor executor, UnlockSubscriptions subscriptions,
                       ScheduledExecutorService scheduler, String address) {
        this.options = options;
        this.waits = new SyncWaits(options.operationTimeout(), address);
        this.executor = executor;
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        Duration watchdog = options.watchdogTimeout();
        this.heartbeatMillis = Math.max(30, (watchdog.compareTo(MAX_WAITER_HEARTBEAT) < 0 ? watchdog
                : MAX_WAITER_HEARTBEAT).toMillis());
        KeyCache<RedisReadWriteLockOps.Keys> rwKeys =
                new KeyCache<>(name -> new RedisReadWriteLockOps.Keys(options.namespace(), name));
        this.readOps = new RedisReadWriteLockOps(true, options.namespace(), executor, subscriptions, scheduler,
                heartbeatMillis, rwKeys);
        this.writeOps = new RedisReadWriteLockOps(false, options.namespace(), executor, subscriptions, scheduler,
                heartbeatMillis, rwKeys);
        this.fairOps = new RedisFairLockOps(options.namespace(), executor, subscriptions, scheduler, heartbeatMillis);
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

    RedisSemaphore semaphore(String name) {
        return new RedisSemaphore(options.namespace(), name, executor, subscriptions, scheduler, waits,
                Math.max(1, heartbeatMillis / 3), semaphoreWaiters.get(name));
    }

    RedisCountDownLatch countDownLatch(String name) {
        return new RedisCountDownLatch(options.namespace(), name, executor, subscriptions, scheduler, waits,
                Math.max(1, heartbeatMillis / 3));
    }

    RedisPermitExpirableSemaphore permitExpirableSemaphore(String name) {
        return new RedisPermitExpirableSemaphore(options.namespace(), name, executor, subscriptions, scheduler, waits,
                Math.max(1, heartbeatMillis / 3));
    }

    /** Default first backoff of a spin lock's waiter. */
    static final Duration SPIN_INITIAL_BACKOFF = Duration.ofMillis(4);
    /** Default longest backoff of a spin lock's waiter. */
    static final Duration SPIN_MAX_BACKOFF = Duration.ofMillis(128);

    /** A spin lock; the spin engine is created on first use. */
    DistributedLock spinLock(String name, RedisLockOps lockOps, TimeSource time) {
        SpinLockClient c;
        spinLock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("client closed");
            }
            if (spinClient == null) {
                spinClient = new SpinLockClient(options, time, new RedisSpinLockOps(lockOps, scheduler,
                        SPIN_INITIAL_BACKOFF.toNanos(), SPIN_MAX_BACKOFF.toNanos()));
            }
            c = spinClient;
        } finally {
            spinLock.unlock();
        }
        return c.lock(name);
    }

    /**
     * Abandons the pending waits of semaphores and latches and closes the spin engine (its holds turn lost, as the
     * client's own do); the engine's waits end with the engine.
     */
    void close() {
        waits.close();
        SpinLockClient c;
        spinLock.lock();
        try {
            closed = true;
            c = spinClient;
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
