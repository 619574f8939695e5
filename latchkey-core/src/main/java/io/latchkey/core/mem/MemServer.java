package io.latchkey.core.mem;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-process lock server shared by every {@link MemLockClient} connected to the same {@code mem://} name: the
 * reference implementation of the backend contract. This class is the server's registry, lifecycle and thread; its
 * parts, one job each: {@link MemLocks} (locks and fencing counters, with their subscribers in {@link MemWatchers}),
 * {@link MemInspector} (holders and listing), the fenced stores' data ({@link MemFencedStoreOps}) and
 * {@link MemCountStore} (semaphores, permit-expirable semaphores, latches).
 *
 * <p>Expiry wake-ups run on one daemon thread per server ({@code latchkey-mem-server-<name>}), started by the first
 * client and stopped by the last one's close; locks left behind meanwhile expire lazily on the next access.
 */
final class MemServer {

    private static final ReentrantLock REGISTRY_LOCK = new ReentrantLock();
    private static final Map<String, MemServer> SERVERS = new HashMap<>();

    private final String serverName;
    /** Guarded by REGISTRY_LOCK. */
    private int clients;
    private volatile ScheduledThreadPoolExecutor scheduler;
    final MemLocks locks = new MemLocks(this);
    /** The fenced stores' data: lock key, NUL, store key → value. Guarded by the locks' lock; never expires. */
    final Map<String, byte[]> fencedData = new HashMap<>();
    final MemCountStore synchronizers = new MemCountStore(this);

    private MemServer(String serverName) {
        this.serverName = serverName;
    }

    static MemServer attach(String serverName) {
        REGISTRY_LOCK.lock();
        try {
            MemServer s = SERVERS.computeIfAbsent(serverName, MemServer::new);
            if (s.clients++ == 0) {
                String threadName = "latchkey-mem-server-" + (serverName.length() > 32
                        ? serverName.substring(0, 32) : serverName);
                ScheduledThreadPoolExecutor ex = new ScheduledThreadPoolExecutor(1, r -> {
                    Thread t = new Thread(r, threadName);
                    t.setDaemon(true);
                    return t;
                });
                ex.setRemoveOnCancelPolicy(true);
                ex.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
                s.scheduler = ex;
            }
            return s;
        } finally {
            REGISTRY_LOCK.unlock();
        }
    }

    void detach() {
        ScheduledThreadPoolExecutor stop = null;
        REGISTRY_LOCK.lock();
        try {
            if (--clients == 0) {
                stop = scheduler;
                scheduler = null;
            }
        } finally {
            REGISTRY_LOCK.unlock();
        }
        if (stop != null) {
            stop.shutdownNow();
        }
    }

    String name() {
        return serverName;
    }

    /**
     * Test hook: makes every operation fail with {@link io.latchkey.LockUnavailableException} (the queues are lost and
     * every subscriber is told, so current waiters look again and fail), or heals.
     */
    void setAvailable(boolean up) {
        locks.setAvailable(up);
        if (!up) {
            synchronizers.failAll();
        }
    }

    boolean isAvailable() {
        return locks.isAvailable();
    }

    /** Runs {@code task} on the server's thread after {@code delayNanos}; {@code null} when no client is open. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        ScheduledThreadPoolExecutor ex = scheduler;
        if (ex == null) {
            return null;
        }
        try {
            return ex.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }
}
