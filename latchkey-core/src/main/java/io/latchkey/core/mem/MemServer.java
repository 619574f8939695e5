package io.latchkey.core.mem;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.TimeSource;
import io.latchkey.spi.LockInfo;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
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
 * clock, and a FIFO of waiters. A waiter is granted as soon as it is first in line and compatible with the holds
 * (release, expiry, force-unlock, cancel all re-run the queue), so the server is fair, readers do not starve a
 * waiting writer, and nothing polls. Fencing counters live per key, outside the lock state, and are never reset
 * for the life of the JVM.
 *
 * <p>Everything is guarded by one {@link ReentrantLock}; futures are completed after it is released, because
 * the engine reacts on the completing thread. Expiry wake-ups and waiters' deadlines run on one daemon thread per
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

    /** Makes every operation fail with {@link LockUnavailableException} (and fails current waiters), or heals. */
    void setAvailable(boolean up) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            available = up;
            if (!up) {
                for (Entry e : entries.values()) {
                    for (MemWaiter w : e.waiters) {
                        w.cancelTimeout();
                        after.add(() -> w.future.completeExceptionally(unavailable("acquire", e.key)));
                    }
                    e.waiters.clear();
                    cancelWake(e);
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

    CompletableFuture<Grant> acquire(String key, boolean shared, AcquireRequest request) {
        CompletableFuture<Grant> f = new CompletableFuture<>();
        List<Runnable> after = new ArrayList<>();
        MemWaiter queued = null;
        lock.lock();
        try {
            if (!available) {
                return CompletableFuture.failedFuture(unavailable("acquire", key));
            }
            if (request.isCancelled()) {
                return CompletableFuture.completedFuture(null);
            }
            Entry e = entries.computeIfAbsent(key, Entry::new);
            long now = clock.nanoTime();
            expire(e, now, after);
            boolean downgrade = shared && e.exclusiveOwner() != null
                    && e.exclusiveOwner().equals(request.ownerId());
            if (compatible(e, request.ownerId(), shared) && (e.waiters.isEmpty() || downgrade)) {
                Grant g = grant(e, request, shared, now);
                after.add(() -> f.complete(g));
            } else if (request.isExpired()) {
                after.add(() -> f.complete(null));
                removeIfIdle(e);
            } else {
                queued = new MemWaiter(request, shared, f);
                e.waiters.add(queued);
                if (request.deadlineNanos() != AcquireRequest.NO_DEADLINE) {
                    MemWaiter w = queued;
                    queued.timeout = schedule(() -> dropWaiter(key, w), request.remainingNanos());
                }
                ensureWake(e, now);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        if (queued != null) {
            MemWaiter w = queued;
            request.cancelled().thenRun(() -> dropWaiter(key, w));
        }
        return f;
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
                    grantWaiters(e, now, after);
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

    CompletableFuture<Grant> handOff(String key, Grant from, AcquireRequest request) {
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
                    next = grant(e, request, false, now);
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
                grantWaiters(e, now, after);
                removeIfIdle(e);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        return CompletableFuture.completedFuture(held);
    }

    /** Who holds {@code key} now, for diagnostics; {@code null} if free. */
    String describeHolder(String key) {
        lock.lock();
        try {
            Entry e = entries.get(key);
            List<String> owners = new ArrayList<>();
            if (e != null) {
                long now = clock.nanoTime();
                for (MemHold h : e.holds) {
                    if (h.expiresAt - now > 0) {
                        owners.add(String.format("%s %s (token %d, expires in %d ms)", h.shared ? "reader" : "owner",
                                h.owner, h.token, TimeUnit.NANOSECONDS.toMillis(h.expiresAt - now)));
                    }
                }
                if (!e.waiters.isEmpty()) {
                    owners.add(e.waiters.size() + " waiter(s) queued");
                }
            }
            return owners.isEmpty() ? null : String.join(", ", owners);
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
                                OptionalInt.of(e.waiters.size())));
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

    private Grant grant(Entry e, AcquireRequest request, boolean shared, long now) {
        long token = fencing.merge(e.key, 1L, Long::sum);
        // taken before the server's expiry is set, so that requestedAt + lease is a safe local bound
        long requestedAt = request.time().nanoTime();
        MemHold h = new MemHold(request.ownerId(), token, shared,
                now + TimeUnit.MILLISECONDS.toNanos(request.leaseMillis()));
        e.holds.add(h);
        return new Grant(request, token, requestedAt, null);
    }

    private void expire(Entry e, long now, List<Runnable> after) {
        boolean removed = e.holds.removeIf(h -> h.expiresAt - now <= 0);
        if (removed) {
            grantWaiters(e, now, after);
        }
    }

    /** Grants waiters in FIFO order while the first one is compatible; drops cancelled ones. */
    private void grantWaiters(Entry e, long now, List<Runnable> after) {
        while (!e.waiters.isEmpty()) {
            MemWaiter w = e.waiters.peek();
            if (w.request.isCancelled()) {
                e.waiters.poll();
                w.cancelTimeout();
                after.add(() -> w.future.complete(null));
                continue;
            }
            if (!compatible(e, w.request.ownerId(), w.shared)) {
                break;
            }
            e.waiters.poll();
            w.cancelTimeout();
            Grant g = grant(e, w.request, w.shared, now);
            after.add(() -> w.future.complete(g));
        }
        ensureWake(e, now);
    }

    private void dropWaiter(String key, MemWaiter w) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            Entry e = entries.get(key);
            if (e != null && e.waiters.remove(w)) {
                w.cancelTimeout();
                after.add(() -> w.future.complete(null));
                long now = clock.nanoTime();
                // the dropped waiter may have blocked compatible ones behind it
                grantWaiters(e, now, after);
                removeIfIdle(e);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
    }

    /** Keeps one wake-up scheduled at the earliest hold expiry while anyone waits. */
    private void ensureWake(Entry e, long now) {
        if (e.waiters.isEmpty() || e.holds.isEmpty()) {
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
        final ArrayDeque<MemWaiter> waiters = new ArrayDeque<>();
        ScheduledFuture<?> wake;
        long wakeAt;

        Entry(String key) {
            this.key = key;
        }

        boolean isIdle() {
            return holds.isEmpty() && waiters.isEmpty();
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

        MemHold(String owner, long token, boolean shared, long expiresAt) {
            this.owner = owner;
            this.token = token;
            this.shared = shared;
            this.expiresAt = expiresAt;
        }
    }

    private static final class MemWaiter {
        final AcquireRequest request;
        final boolean shared;
        final CompletableFuture<Grant> future;
        ScheduledFuture<?> timeout;

        MemWaiter(AcquireRequest request, boolean shared, CompletableFuture<Grant> future) {
            this.request = request;
            this.shared = shared;
            this.future = future;
        }

        void cancelTimeout() {
            if (timeout != null) {
                timeout.cancel(false);
            }
        }
    }
}
