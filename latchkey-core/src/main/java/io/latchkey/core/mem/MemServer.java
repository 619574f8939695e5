package io.latchkey.core.mem;

import io.latchkey.LockHolder;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.TimeSource;
import io.latchkey.spi.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-process lock server shared by every {@link MemLockClient} connected to the same {@code mem://} name: the
 * reference implementation of the backend contract.
 *
 * <p>Each key has a list of holds (one exclusive, or any number of shared ones) with expiry times on the server's
 * clock, and a FIFO of waiting owners' entries. The server answers single attempts
 * ({@link io.latchkey.core.RemoteLockOps#singleAttempts()}): an attempt is granted when the holds allow it and no entry
 * ahead of its owner's blocks it, else it keeps its entry and is told when to look again; the engine does the
 * waiting. Every change that can let a waiter in (release, expiry, force-unlock, a withdrawn entry) is pushed to the
 * key's subscribers. So the server is fair, readers do not starve a waiting writer, and nothing polls. Fencing
 * counters live per key, outside the lock state, and are never reset for the life of the JVM.
 *
 * <p>Everything is guarded by one {@link ReentrantLock}; futures are completed after it is released, because
 * the engine reacts on the completing thread. Expiry wake-ups run on one daemon thread per
 * server ({@code latchkey-mem-server-<name>}), started by the first client and stopped by the last one's close;
 * locks left behind meanwhile expire lazily on the next access.
 */
final class MemServer {

    private static final ReentrantLock REGISTRY_LOCK = new ReentrantLock();
    private static final Map<String, MemServer> SERVERS = new HashMap<>();

    private final String serverName;
    private final TimeSource clock = TimeSource.SYSTEM;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Entry> entries = new HashMap<>();
    private final Map<String, Long> fencing = new HashMap<>();
    /** Lock subscribers by key ({@link #subscribe}); apart from the entries, so that a subscription is no state. */
    private final Map<String, List<Runnable>> watchers = new HashMap<>();
    private volatile boolean available = true;
    /** Guarded by REGISTRY_LOCK. */
    private int clients;
    private volatile ScheduledThreadPoolExecutor scheduler;
    final MemSynchronizerStore synchronizers = new MemSynchronizerStore(this);

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

    // ---------------------------------------------------------------------------------------------- test hook

    /**
     * Makes every operation fail with {@link LockUnavailableException} (the queues are lost and every subscriber is
     * told, so current waiters look again and fail), or heals.
     */
    void setAvailable(boolean up) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            available = up;
            if (!up) {
                // the queues are lost with the server; every waiter looks again now and learns of the outage
                for (Entry e : entries.values()) {
                    e.queue.clear();
                    cancelWake(e);
                }
                for (List<Runnable> l : watchers.values()) {
                    after.addAll(l);
                }
                entries.values().removeIf(Entry::isIdle);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        if (!up) {
            synchronizers.failAll();
        }
    }

    boolean isAvailable() {
        return available;
    }

    private LockUnavailableException unavailable(String operation, String key) {
        return new LockUnavailableException(String.format(
                "mem server '%s' is unavailable: %s of lock '%s' failed", serverName, operation,
                MemSynchronizerStore.display(key)));
    }

    // ---------------------------------------------------------------------------------------------- operations

    /**
     * One attempt ({@link io.latchkey.core.RemoteLockOps#tryAcquire}): grants at once if the holds allow it and no
     * entry ahead in the key's queue blocks it (for a reader: no writer ahead; a downgrade never waits), else keeps
     * (or adds) the owner's entry in the queue and answers when to look again: at the earliest hold expiry.
     */
    CompletableFuture<RemoteLockOps.Attempt> tryAcquire(String key, boolean shared, AcquireRequest request,
                                                      String clientName) {
        List<Runnable> after = new ArrayList<>();
        RemoteLockOps.Attempt answer;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("acquire", key));
            }
            Entry e = entries.computeIfAbsent(key, Entry::new);
            long now = clock.nanoTime();
            expire(e, now, after);
            String owner = request.ownerId();
            boolean downgrade = shared && owner.equals(e.exclusiveOwner());
            if (compatible(e, owner, shared) && (downgrade || first(e, owner, shared))) {
                e.queue.remove(owner);
                answer = RemoteLockOps.Attempt.granted(grant(e, request, shared, now, clientName));
                if (shared && !e.queue.isEmpty()) {
                    changed(e, now, after); // readers behind may come in as well
                }
            } else {
                e.queue.putIfAbsent(owner, shared);
                ensureWake(e, now);
                answer = RemoteLockOps.Attempt.queued(owner, recheckNanos(e, now));
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(answer);
    }

    /** Removes {@code owner}'s entry from the key's queue; those behind it are told. */
    CompletableFuture<Void> withdraw(String key, String owner) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("withdraw", key));
            }
            Entry e = entries.get(key);
            if (e != null && e.queue.remove(owner) != null) {
                changed(e, clock.nanoTime(), after);
                removeIfIdle(e);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(null);
    }

    /** Runs {@code changed} after every change of {@code key} that can let a waiter in, until closed. */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String key, Runnable changed) {
        lock.lock();
        try {
            watchers.computeIfAbsent(key, k -> new ArrayList<>(2)).add(changed);
        } finally {
            lock.unlock();
        }
        return CompletableFuture.completedFuture(() -> {
            lock.lock();
            try {
                List<Runnable> l = watchers.get(key);
                if (l != null && l.remove(changed) && l.isEmpty()) {
                    watchers.remove(key);
                }
            } finally {
                lock.unlock();
            }
        });
    }

    CompletableFuture<Boolean> release(String key, Grant grant) {
        List<Runnable> after = new ArrayList<>();
        boolean released = false;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("release", key));
            }
            Entry e = entries.get(key);
            if (e != null) {
                long now = clock.nanoTime();
                expire(e, now, after);
                MemHold h = e.find(grant);
                if (h != null) {
                    e.holds.remove(h);
                    released = true;
                    changed(e, now, after);
                }
                removeIfIdle(e);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(released);
    }

    CompletableFuture<Set<Grant>> renew(String namespace, Collection<Grant> grants) {
        Set<Grant> lost = new HashSet<>();
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(new LockUnavailableException(String.format(
                        "mem server '%s' is unavailable: renewal of %d lock(s) failed", serverName, grants.size())));
            }
            long now = clock.nanoTime();
            for (Grant g : grants) {
                Entry e = entries.get(namespace + g.name());
                MemHold h = null;
                if (e != null) {
                    expire(e, now, after);
                    h = e.find(g);
                }
                if (h == null) {
                    lost.add(g);
                } else {
                    h.expiresAt = now + TimeUnit.MILLISECONDS.toNanos(g.leaseMillis());
                    ensureWake(e, now);
                }
                if (e != null) {
                    removeIfIdle(e);
                }
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(lost);
    }

    CompletableFuture<Grant> handOff(String key, Grant from, AcquireRequest request, String clientName) {
        List<Runnable> after = new ArrayList<>();
        Grant next = null;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("handOff", key));
            }
            Entry e = entries.get(key);
            if (e != null) {
                long now = clock.nanoTime();
                expire(e, now, after);
                MemHold h = e.find(from);
                if (h != null && !h.shared) {
                    e.holds.remove(h);
                    next = grant(e, request, false, now, clientName);
                }
                removeIfIdle(e);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(next);
    }

    CompletableFuture<Boolean> isLocked(String key) {
        List<Runnable> after = new ArrayList<>();
        boolean locked = false;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("isLocked", key));
            }
            Entry e = entries.get(key);
            if (e != null) {
                expire(e, clock.nanoTime(), after);
                locked = !e.holds.isEmpty();
                removeIfIdle(e);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(locked);
    }

    CompletableFuture<Boolean> forceUnlock(String key) {
        List<Runnable> after = new ArrayList<>();
        boolean held = false;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("forceUnlock", key));
            }
            Entry e = entries.get(key);
            if (e != null) {
                long now = clock.nanoTime();
                expire(e, now, after);
                held = !e.holds.isEmpty();
                e.holds.clear();
                changed(e, now, after);
                removeIfIdle(e);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(held);
    }

    /** Who holds {@code key} now (the first unexpired hold), with the length of its queue; {@code null} if free. */
    LockHolder holder(String key) {
        lock.lock();
        try {
            Entry e = entries.get(key);
            if (e != null) {
                long now = clock.nanoTime();
                for (MemHold h : e.holds) {
                    if (h.expiresAt - now > 0) {
                        return new LockHolder(h.owner, h.clientName, Optional.of(Instant.ofEpochMilli(h.sinceMillis)),
                                Optional.of(Duration.ofNanos(h.expiresAt - now)), OptionalLong.of(h.token),
                                OptionalInt.of(e.queue.size()));
                    }
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * The unexpired holds of every lock key that starts with {@code prefix}, named by the rest of the key, for
     * {@link MemLockClient#list}: one entry per hold (a read lock may have several), with the server's token, its
     * remaining lease on the server's clock and the length of the key's queue. Holds count 1 each: reentrancy is
     * counted by the holder's client. Expired holds are skipped, not removed: inspection changes nothing.
     */
    List<LockInfo> holds(String prefix) {
        List<LockInfo> result = new ArrayList<>();
        lock.lock();
        try {
            if (!available) {
                throw new LockUnavailableException(String.format(
                        "mem server '%s' is unavailable: inspect failed", serverName));
            }
            long now = clock.nanoTime();
            for (Entry e : entries.values()) {
                if (!e.key.startsWith(prefix)) {
                    continue;
                }
                for (MemHold h : e.holds) {
                    long left = h.expiresAt - now;
                    if (left > 0) {
                        result.add(new LockInfo(e.key.substring(prefix.length()), h.owner, 1,
                                OptionalLong.of(h.token), Optional.of(Duration.ofNanos(left)),
                                OptionalInt.of(e.queue.size()))
                                .withHolder(h.clientName, Optional.of(Instant.ofEpochMilli(h.sinceMillis))));
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        return result;
    }

    /** How many keys have state (holds or waiters); for leak tests. */
    int keyCount() {
        lock.lock();
        try {
            return entries.size();
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------- internals

    private static boolean compatible(Entry e, String owner, boolean shared) {
        if (e.holds.isEmpty()) {
            return true;
        }
        if (!shared) {
            return false;
        }
        String exclusive = e.exclusiveOwner();
        return exclusive == null || exclusive.equals(owner);
    }

    private Grant grant(Entry e, AcquireRequest request, boolean shared, long now, String clientName) {
        long token = fencing.merge(e.key, 1L, Long::sum);
        // taken before the server's expiry is set, so that requestedAt + lease is a safe local bound
        long requestedAt = request.time().nanoTime();
        MemHold h = new MemHold(request.ownerId(), token, shared,
                now + TimeUnit.MILLISECONDS.toNanos(request.leaseMillis()), clientName, System.currentTimeMillis());
        e.holds.add(h);
        return new Grant(request, token, requestedAt, null);
    }

    private void expire(Entry e, long now, List<Runnable> after) {
        boolean removed = e.holds.removeIf(h -> h.expiresAt - now <= 0);
        if (removed) {
            changed(e, now, after);
        }
    }

    /** Tells the key's subscribers (after the lock is released) and keeps the expiry wake-up. */
    private void changed(Entry e, long now, List<Runnable> after) {
        List<Runnable> l = watchers.get(e.key);
        if (l != null) {
            after.addAll(l);
        }
        ensureWake(e, now);
    }

    /** Whether no entry ahead of {@code owner}'s (all of them, if it has none) blocks it: for a reader, no writer. */
    private static boolean first(Entry e, String owner, boolean shared) {
        for (Map.Entry<String, Boolean> q : e.queue.entrySet()) {
            if (q.getKey().equals(owner)) {
                return true;
            }
            if (!shared || !q.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** When a queued owner should look again without a push: at the earliest hold expiry, else in a second. */
    private static long recheckNanos(Entry e, long now) {
        long earliest = Long.MAX_VALUE;
        for (MemHold h : e.holds) {
            earliest = Math.min(earliest, h.expiresAt - now);
        }
        return earliest == Long.MAX_VALUE ? TimeUnit.SECONDS.toNanos(1) : Math.max(1, earliest);
    }

    /** Keeps one wake-up scheduled at the earliest hold expiry while anyone waits. */
    private void ensureWake(Entry e, long now) {
        if (e.queue.isEmpty() || e.holds.isEmpty()) {
            cancelWake(e);
            return;
        }
        long earliest = Long.MAX_VALUE;
        boolean first = true;
        for (MemHold h : e.holds) {
            if (first || h.expiresAt - earliest < 0) {
                earliest = h.expiresAt;
                first = false;
            }
        }
        if (e.wake != null && e.wakeAt == earliest) {
            return;
        }
        cancelWake(e);
        e.wakeAt = earliest;
        String key = e.key;
        e.wake = schedule(() -> onWake(key), Math.max(0, earliest - now));
    }

    private void cancelWake(Entry e) {
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

    /** The fenced stores' data: lock key, NUL, store key → value. Guarded by {@link #lock}; never expires. */
    private final Map<String, byte[]> fencedData = new HashMap<>();

    /** {@link MemFencedStoreOps#get}: the value of {@code storeKey}, under the server's lock. */
    CompletableFuture<java.util.Optional<byte[]>> fencedGet(String lockKey, String storeKey) {
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("fenced store get", lockKey));
            }
            byte[] v = fencedData.get(lockKey + '\u0000' + storeKey);
            return CompletableFuture.completedFuture(java.util.Optional.ofNullable(v == null ? null : v.clone()));
        } finally {
            lock.unlock();
        }
    }

    /**
     * {@link MemFencedStoreOps#write}: under the server's one lock, checks that {@code lockKey} has an unexpired
     * exclusive hold with {@code token}, then applies the write — one atomic step.
     */
    CompletableFuture<io.latchkey.core.FencedWrite.Outcome> fencedWrite(String lockKey, long token,
                                                                         io.latchkey.core.FencedWrite w) {
        List<Runnable> after = new ArrayList<>();
        io.latchkey.core.FencedWrite.Outcome outcome;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("fenced store " + w.kind(), lockKey));
            }
            Entry e = entries.get(lockKey);
            boolean current = false;
            if (e != null) {
                expire(e, clock.nanoTime(), after);
                for (MemHold h : e.holds) {
                    current |= !h.shared && h.token == token;
                }
                removeIfIdle(e);
            }
            if (!current) {
                outcome = io.latchkey.core.FencedWrite.Outcome.STALE;
            } else {
                String k = lockKey + '\u0000' + w.key();
                byte[] now = fencedData.get(k);
                if (!w.matches(now)) {
                    outcome = io.latchkey.core.FencedWrite.Outcome.UNCHANGED;
                } else {
                    if (w.kind() == io.latchkey.core.FencedWrite.Kind.DELETE) {
                        fencedData.remove(k);
                    } else {
                        fencedData.put(k, w.value().clone());
                    }
                    outcome = io.latchkey.core.FencedWrite.Outcome.APPLIED;
                }
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(outcome);
    }

    private void removeIfIdle(Entry e) {
        if (e.isIdle()) {
            cancelWake(e);
            entries.remove(e.key, e);
        }
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

    private static final class Entry {
        final String key;
        final List<MemHold> holds = new ArrayList<>(2);
        /** Waiting owners in arrival order, and whether each wants the lock shared. */
        final LinkedHashMap<String, Boolean> queue = new LinkedHashMap<>(4);
        ScheduledFuture<?> wake;
        long wakeAt;

        Entry(String key) {
            this.key = key;
        }

        boolean isIdle() {
            return holds.isEmpty() && queue.isEmpty();
        }

        String exclusiveOwner() {
            for (MemHold h : holds) {
                if (!h.shared) {
                    return h.owner;
                }
            }
            return null;
        }

        /** The hold of exactly this grant: same owner AND same token, so a stale grant never matches. */
        MemHold find(Grant g) {
            for (Iterator<MemHold> it = holds.iterator(); it.hasNext(); ) {
                MemHold h = it.next();
                if (h.token == g.fencingToken() && h.owner.equals(g.ownerId())) {
                    return h;
                }
            }
            return null;
        }
    }

    private static final class MemHold {
        final String owner;
        final long token;
        final boolean shared;
        long expiresAt;
        /** The holding client's name: the client's one string, shared by all its holds. */
        final String clientName;
        final long sinceMillis;

        MemHold(String owner, long token, boolean shared, long expiresAt, String clientName, long sinceMillis) {
            this.owner = owner;
            this.token = token;
            this.shared = shared;
            this.expiresAt = expiresAt;
            this.clientName = clientName;
            this.sinceMillis = sinceMillis;
        }
    }
}
