package io.latchkey.core.mem;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.NameArbiter;
import io.latchkey.core.NameArbiter.GrantState;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The mem server's locks: per key a {@link NameArbiter} (holds with expiry times on the server's clock, and the FIFO
 * of waiting owners), and the fencing counters, which live per key apart from the lock state and are never reset for
 * the life of the JVM. The server answers single attempts ({@link RemoteLockOps#singleAttempts()}): an attempt is
 * granted when the arbiter lets its owner take the key, else the owner keeps its entry and is told when to look again;
 * the engine does the waiting. Every change that can let a waiter in (release, expiry, force-unlock, a withdrawn
 * entry) is pushed to the key's subscribers ({@link MemWatchers}). So the server is fair, readers do not starve a
 * waiting writer, and nothing polls: while anyone waits, one wake-up per key runs on the server's thread at the
 * earliest hold expiry.
 *
 * <p>Everything is guarded by one {@link ReentrantLock}; subscribers are called after it is released, because the
 * engine reacts on the calling thread.
 */
final class MemLocks {

    private final MemServer server;
    private final TimeSource clock = TimeSource.SYSTEM;
    final ReentrantLock lock = new ReentrantLock();
    final MemWatchers watchers = new MemWatchers(lock);
    private final Map<String, Entry> entries = new HashMap<>();
    private final Map<String, Long> fencing = new HashMap<>();
    private volatile boolean available = true;

    MemLocks(MemServer server) {
        this.server = server;
    }

    /** A step under the lock: {@code now} on the server's clock, subscribers to call in {@code after}. */
    interface Step<T> {
        T run(long now, List<Runnable> after);
    }

    /**
     * Runs {@code step} under the lock, then the subscribers it collected; fails with {@link LockUnavailableException}
     * while the server is down, naming {@code operation} and the lock of {@code key} (if not {@code null}).
     */
    <T> CompletableFuture<T> call(String operation, String key, Step<T> step) {
        List<Runnable> after = new ArrayList<>();
        T result;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable(key == null ? operation
                        : operation + " of lock '" + MemCountStore.display(key) + "'"));
            }
            result = step.run(clock.nanoTime(), after);
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(result);
    }

    LockUnavailableException unavailable(String what) {
        return new LockUnavailableException(String.format("mem server '%s' is unavailable: %s failed",
                server.name(), what));
    }

    boolean isAvailable() {
        return available;
    }

    /** Takes the server down (the queues are lost and every subscriber is told, so waiters look again and fail). */
    void setAvailable(boolean up) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            available = up;
            if (!up) {
                for (Entry e : entries.values()) {
                    e.clearQueue();
                    cancelWake(e);
                }
                watchers.all(after);
                entries.values().removeIf(Entry::isIdle);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
    }

    /**
     * One attempt ({@link RemoteLockOps#tryAcquire}): grants at once if the arbiter lets the owner take the key,
     * else keeps (or adds) the owner's entry in the key's queue and answers when to look again: at the earliest hold
     * expiry.
     */
    CompletableFuture<RemoteLockOps.Attempt> tryAcquire(String key, boolean shared, AcquireRequest request,
                                                      String clientName) {
        return call("acquire", key, (now, after) -> {
            Entry e = entries.computeIfAbsent(key, Entry::new);
            expire(e, now, after);
            String owner = request.ownerId();
            if (e.mayTake(owner, shared)) {
                long requestedAt = request.time().nanoTime(); // before the hold: requestedAt + lease is a safe bound
                GrantState h = newHold(e, request, shared, now, clientName);
                if (e.grant(h)) {
                    changed(e, now, after); // readers behind may come in as well
                }
                return RemoteLockOps.Attempt.granted(new Grant(request, h.token(), requestedAt, null));
            }
            e.enqueue(owner, new NameArbiter.Waiting(shared, 0)); // keeps its place if it had one
            ensureWake(e, now);
            long earliest = e.earliestLeaseEnd();
            return RemoteLockOps.Attempt.queued(owner, earliest == GrantState.ENDED ? TimeUnit.SECONDS.toNanos(1)
                    : Math.max(1, earliest - now));
        });
    }

    /** Removes {@code owner}'s entry from the key's queue; those behind it are told. */
    CompletableFuture<Void> withdraw(String key, String owner) {
        return call("withdraw", key, (now, after) -> {
            Entry e = entries.get(key);
            if (e != null && e.withdraw(owner) != null) {
                changed(e, now, after);
                removeIfIdle(e);
            }
            return null;
        });
    }

    CompletableFuture<Boolean> release(String key, Grant grant) {
        return call("release", key, (now, after) -> {
            Entry e = current(key, now, after);
            boolean released = e != null && e.remove(e.find(grant.ownerId(), grant.fencingToken()));
            if (released) {
                changed(e, now, after);
            }
            removeIfIdle(e);
            return released;
        });
    }

    CompletableFuture<Set<Grant>> renew(String namespace, Collection<Grant> grants) {
        return call("renewal of " + grants.size() + " lock(s)", null, (now, after) -> {
            Set<Grant> lost = new HashSet<>();
            for (Grant g : grants) {
                Entry e = current(namespace + g.name(), now, after);
                GrantState h = e == null ? null : e.find(g.ownerId(), g.fencingToken());
                if (h == null || !h.renew(now, TimeUnit.MILLISECONDS.toNanos(g.leaseMillis()))) {
                    lost.add(g);
                } else {
                    ensureWake(e, now);
                }
                removeIfIdle(e);
            }
            return lost;
        });
    }

    CompletableFuture<Grant> handOff(String key, Grant from, AcquireRequest request, String clientName) {
        return call("handOff", key, (now, after) -> {
            Entry e = current(key, now, after);
            GrantState h = e == null ? null : e.find(from.ownerId(), from.fencingToken());
            Grant next = null;
            if (h != null && !h.shared()) {
                long requestedAt = request.time().nanoTime();
                GrantState to = newHold(e, request, false, now, clientName);
                e.handOver(h, to);
                next = new Grant(request, to.token(), requestedAt, null);
            }
            removeIfIdle(e);
            return next;
        });
    }

    CompletableFuture<Boolean> isLocked(String key) {
        return call("isLocked", key, (now, after) -> {
            Entry e = current(key, now, after);
            removeIfIdle(e);
            return e != null && !e.holds().isEmpty();
        });
    }

    CompletableFuture<Boolean> forceUnlock(String key) {
        return call("forceUnlock", key, (now, after) -> {
            Entry e = current(key, now, after);
            boolean held = e != null && !e.clear().isEmpty();
            if (e != null) {
                changed(e, now, after);
            }
            removeIfIdle(e);
            return held;
        });
    }

    /** The entry of {@code key} with its expired holds removed, or {@code null}; under the lock. */
    Entry current(String key, long now, List<Runnable> after) {
        Entry e = entries.get(key);
        if (e != null) {
            expire(e, now, after);
        }
        return e;
    }

    /** The entries by key, for inspection (read only); under the lock. */
    Map<String, Entry> entries() {
        return entries;
    }

    // ---------------------------------------------------------------------------------------------- internals

    /** A hold of {@code request}'s owner with the key's next fencing token (not yet granted). */
    private GrantState newHold(Entry e, AcquireRequest request, boolean shared, long now, String clientName) {
        return new GrantState(request.ownerId(), fencing.merge(e.key, 1L, Long::sum), shared,
                now + TimeUnit.MILLISECONDS.toNanos(request.leaseMillis()), clientName, System.currentTimeMillis());
    }

    private void expire(Entry e, long now, List<Runnable> after) {
        if (!e.expire(now).isEmpty()) {
            changed(e, now, after);
        }
    }

    /** Tells the key's subscribers (after the lock is released) and keeps the expiry wake-up. */
    private void changed(Entry e, long now, List<Runnable> after) {
        watchers.collect(e.key, after);
        ensureWake(e, now);
    }

    /** Keeps one wake-up scheduled at the earliest hold expiry while anyone waits. */
    private void ensureWake(Entry e, long now) {
        long earliest = e.earliestLeaseEnd();
        if (e.queue().isEmpty() || earliest == GrantState.ENDED) {
            cancelWake(e);
            return;
        }
        if (e.wake != null && e.wakeAt == earliest) {
            return;
        }
        cancelWake(e);
        e.wakeAt = earliest;
        String key = e.key;
        e.wake = server.schedule(() -> onWake(key), Math.max(0, earliest - now));
    }

    private static void cancelWake(Entry e) {
        if (e.wake != null) {
            e.wake.cancel(false);
            e.wake = null;
        }
    }

    private void onWake(String key) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            Entry e = entries.get(key);
            if (e != null) {
                e.wake = null;
                long now = clock.nanoTime();
                expire(e, now, after);
                ensureWake(e, now);
                removeIfIdle(e);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
    }

    void removeIfIdle(Entry e) {
        if (e != null && e.isIdle()) {
            cancelWake(e);
            entries.remove(e.key, e);
        }
    }

    /** One key's arbiter, with its expiry wake-up. */
    static final class Entry extends NameArbiter<GrantState> {
        final String key;
        ScheduledFuture<?> wake;
        long wakeAt;

        Entry(String key) {
            this.key = key;
        }
    }
}
