package io.latchkey.core.mem;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.PushRegistry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-process lock server shared by every {@link MemLockClient} connected to the same {@code mem://} name: the
 * reference implementation of the backend contract. This class is the server's registry, its one lock, its
 * availability and its push subscriptions; its state: {@link MemLocks} (locks and fencing counters), the fenced
 * stores' data ({@link MemFencedStoreOps}) and the counted primitives' ({@link MemCountOps}).
 *
 * <p>Nothing here runs on a thread of its own: every operation looks once under {@link #lock} and answers, and the
 * engine waits. A hold whose lease ran out is removed by the next operation that touches its key; a waiter learns
 * of that end from its attempt's re-check hint (the earliest lease end), since nobody announces it.
 */
final class MemServer {

    private static final Map<String, MemServer> SERVERS = new ConcurrentHashMap<>();

    private final String serverName;
    /** Guards every state of the server; subscribers are told after it is released. */
    private final ReentrantLock lock = new ReentrantLock();
    /** The subscribers by key: lock keys ({@code namespace NUL name}) and count keys ({@code kind NUL …}). */
    final PushRegistry<Void> pushes = new PushRegistry<>();
    private volatile boolean available = true;
    final MemLocks locks = new MemLocks();
    /** The fenced stores' data: lock key, NUL, store key → value. Never expires. */
    final Map<String, byte[]> fencedData = new HashMap<>();
    /** The counted primitives' state, by count key. */
    final Map<String, MemCountOps.Permits> semaphores = new HashMap<>();
    final Map<String, Long> latches = new HashMap<>();
    long permitTokens;

    private MemServer(String serverName) {
        this.serverName = serverName;
    }

    /** The server called {@code serverName}, created on first use; it lives as long as the JVM. */
    static MemServer attach(String serverName) {
        return SERVERS.computeIfAbsent(serverName, MemServer::new);
    }

    String name() {
        return serverName;
    }

    /** A step under the server's lock: {@code now} on the server's clock, the keys whose subscribers to tell. */
    interface Step<T> {
        T run(long now, List<String> changed);
    }

    /**
     * Runs {@code step} under the server's lock, then tells the subscribers of the keys it collected; fails with
     * {@link LockUnavailableException} while the server is down, naming {@code operation} and {@code key} (if not
     * {@code null}). A {@link RuntimeException} of the step fails the future.
     */
    <T> CompletableFuture<T> call(String operation, String key, Step<T> step) {
        List<String> changed = new ArrayList<>(2);
        T result;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable(key == null ? operation
                        : operation + " of " + display(key)));
            }
            result = step.run(System.nanoTime(), changed);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        } finally {
            lock.unlock();
        }
        changed.forEach(k -> pushes.fire(k, null));
        return CompletableFuture.completedFuture(result);
    }

    /** Reads under the server's lock, without the availability check. */
    <T> T read(java.util.function.Supplier<T> body) {
        lock.lock();
        try {
            return body.get();
        } finally {
            lock.unlock();
        }
    }

    LockUnavailableException unavailable(String what) {
        return new LockUnavailableException(String.format("mem server '%s' is unavailable: %s failed",
                serverName, what));
    }

    boolean isAvailable() {
        return available;
    }

    /**
     * Test hook: makes every operation fail with {@link LockUnavailableException} (the queues are lost and every
     * subscriber is told, so current waiters look again and fail), or heals.
     */
    void setAvailable(boolean up) {
        lock.lock();
        try {
            available = up;
            if (!up) {
                locks.clearQueues();
            }
        } finally {
            lock.unlock();
        }
        if (!up) {
            pushes.fireAll();
        }
    }

    /** A key as messages name it: {@code lock 'a'} for a lock key, {@code semaphore 'a'} for a count key. */
    static String display(String key) {
        int first = key.indexOf('\u0000');
        int last = key.lastIndexOf('\u0000');
        return (first == last ? "lock" : key.substring(0, first)) + " '" + key.substring(last + 1) + "'";
    }
}
