package io.latchkey.redis;

import io.latchkey.ClientOptions;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;

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
        ConcurrentHashMap<String, RedisReadWriteLockOps.Keys> rwKeys = new ConcurrentHashMap<>();
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
                Math.max(1, heartbeatMillis / 3));
    }

    RedisCountDownLatch countDownLatch(String name) {
        return new RedisCountDownLatch(options.namespace(), name, executor, subscriptions, scheduler, waits,
                Math.max(1, heartbeatMillis / 3));
    }

    RedisPermitExpirableSemaphore permitExpirableSemaphore(String name) {
        return new RedisPermitExpirableSemaphore(options.namespace(), name, executor, subscriptions, scheduler, waits,
                Math.max(1, heartbeatMillis / 3));
    }

    /** Abandons the pending waits of semaphores and latches (the engine's waits end with the engine). */
    void close() {
        waits.close();
    }

    long heartbeatMillis() {
        return heartbeatMillis;
    }
}
