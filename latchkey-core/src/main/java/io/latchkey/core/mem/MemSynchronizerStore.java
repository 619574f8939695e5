package io.latchkey.core.mem;

import io.latchkey.LockUnavailableException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The mem server's semaphores, permit-expirable semaphores and count-down latches. Waiters are futures, granted
 * in FIFO order as soon as the first one fits (no barging, no polling); a cancelled future leaves the queue, and
 * a grant that loses the race with its cancellation is given back. One {@link ReentrantLock} guards everything;
 * futures complete after it is released. Time is the server's clock ({@link System#nanoTime()}).
 */
final class MemSynchronizerStore {

    private final MemServer server;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Semaphore> semaphores = new HashMap<>();
    private final Map<String, Latch> latches = new HashMap<>();

    MemSynchronizerStore(MemServer server) {
        this.server = server;
    }

    private static long now() {
        return System.nanoTime();
    }

    private void checkAvailable(String operation, String key) {
        if (!server.isAvailable()) {
            throw new LockUnavailableException(String.format(
                    "mem server '%s' is unavailable: %s of '%s' failed", server.name(), operation, display(key)));
        }
    }

    static String display(String key) {
        int nul = key.indexOf('\u0000');
        return nul >= 0 ? key.substring(nul + 1) : key;
    }

    /** Fails every waiter (the server went down). */
    void failAll() {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            for (Semaphore s : semaphores.values()) {
                for (SemWaiter w : s.waiters) {
                    w.cancelTimeout();
                    after.add(() -> w.future.completeExceptionally(new LockUnavailableException(String.format(
                            "mem server '%s' is unavailable: the wait for '%s' failed", server.name(),
                            display(s.key)))));
                }
                s.waiters.clear();
            }
            for (Latch l : latches.values()) {
                for (CompletableFuture<Boolean> f : l.waiters) {
                    after.add(() -> f.completeExceptionally(new LockUnavailableException(String.format(
                            "mem server '%s' is unavailable: the wait for latch '%s' failed", server.name(),
                            display(l.key)))));
                }
                l.waiters.clear();
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
    }

    // ---------------------------------------------------------------------------------------------- semaphores

    /**
     * Takes {@code permits} permits, or waits in line until {@code deadlineNanos} ({@code Long.MAX_VALUE}: no
     * deadline; at or before now: a single attempt). With a lease, the permits expire (permit-expirable
     * semaphore) and the future completes with the permit id; otherwise with {@code ""}. Completes with
     * {@code null} when the deadline passes; cancel the future to leave the line.
     */
    CompletableFuture<String> acquire(String key, int permits, long leaseNanos, long deadlineNanos) {
        CompletableFuture<String> f = new CompletableFuture<>();
        List<Runnable> after = new ArrayList<>();
        SemWaiter queued = null;
        lock.lock();
        try {
            checkAvailable("acquire", key);
            Semaphore s = semaphores.computeIfAbsent(key, Semaphore::new);
            long now = now();
            s.expire(now);
            if (s.waiters.isEmpty() && s.available() >= permits) {
                String id = s.take(permits, leaseNanos, now);
                after.add(() -> f.complete(id));
            } else if (deadlineNanos != Long.MAX_VALUE && deadlineNanos - now <= 0) {
                after.add(() -> f.complete(null));
            } else {
                queued = new SemWaiter(permits, leaseNanos, f);
                s.waiters.add(queued);
                if (deadlineNanos != Long.MAX_VALUE) {
                    SemWaiter w = queued;
                    queued.timeout = server.schedule(() -> dropSemaphoreWaiter(key, w), deadlineNanos - now);
                }
                scheduleExpiryWake(s, now);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
        if (queued != null) {
            SemWaiter w = queued;
            f.whenComplete((r, e) -> {
                if (f.isCancelled()) {
                    dropSemaphoreWaiter(key, w);
                }
            });
        }
        return f;
    }

    private void dropSemaphoreWaiter(String key, SemWaiter w) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            Semaphore s = semaphores.get(key);
            if (s != null && s.waiters.remove(w)) {
                w.cancelTimeout();
                after.add(() -> w.future.complete(null));
                grantWaiters(s, now(), after);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
    }

    private void grantWaiters(Semaphore s, long now, List<Runnable> after) {
        s.expire(now);
        while (!s.waiters.isEmpty()) {
            SemWaiter w = s.waiters.peek();
            if (w.future.isDone()) {
                s.waiters.poll();
                w.cancelTimeout();
                continue;
            }
            if (s.available() < w.permits) {
                break;
            }
            s.waiters.poll();
            w.cancelTimeout();
            String id = s.take(w.permits, w.leaseNanos, now);
            int permits = w.permits;
            String key = s.key;
            after.add(() -> {
                if (!w.future.complete(id)) {
                    // cancelled while being granted: give the permits back
                    if (id.isEmpty()) {
                        release(key, permits);
                    } else {
                        release(key, id);
                    }
                }
            });
        }
        scheduleExpiryWake(s, now);
    }

    /** While someone waits on a permit-expirable semaphore, wake up at the earliest lease expiry. */
    private void scheduleExpiryWake(Semaphore s, long now) {
        if (s.waiters.isEmpty() || s.leases.isEmpty()) {
            return;
        }
        long earliest = Long.MAX_VALUE;
        boolean first = true;
        for (long expiresAt : s.leases.values()) {
            if (first || expiresAt - earliest < 0) {
                earliest = expiresAt;
                first = false;
            }
        }
        if (s.wake != null && s.wakeAt == earliest) {
            return;
        }
        if (s.wake != null) {
            s.wake.cancel(false);
        }
        s.wakeAt = earliest;
        String key = s.key;
        s.wake = server.schedule(() -> wake(key), Math.max(0, earliest - now));
    }

    private void wake(String key) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            Semaphore s = semaphores.get(key);
            if (s != null) {
                s.wake = null;
                grantWaiters(s, now(), after);
            }
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
    }

    void release(String key, int permits) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            checkAvailable("release", key);
            Semaphore s = semaphores.computeIfAbsent(key, Semaphore::new);
            s.permits += permits;
            grantWaiters(s, now(), after);
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
    }

    /** Returns a leased permit; {@code false} if it had expired or was released. */
    boolean release(String key, String permitId) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            checkAvailable("release", key);
            Semaphore s = semaphores.get(key);
            if (s == null) {
                return false;
            }
            long now = now();
            s.expire(now);
            boolean released = s.leases.remove(permitId) != null;
            if (released) {
                grantWaiters(s, now, after);
            }
            return released;
        } finally {
            lock.unlock();
            after.forEach(Runnable::run);
        }
    }

    boolean updateLease(String key, String permitId, long leaseNanos) {
        lock.lock();
        try {
            checkAvailable("updateLease", key);
            Semaphore s = semaphores.get(key);
            if (s == null) {
                return false;
            }
            long now = now();
            s.expire(now);
            if (!s.leases.containsKey(permitId)) {
                return false;
            }
            s.leases.put(permitId, now + leaseNanos);
            scheduleExpiryWake(s, now);
            return true;
        } finally {
            lock.unlock();
        }
    }

    int availablePermits(String key) {
        lock.lock();
        try {
            checkAvailable("availablePermits", key);
            Semaphore s = semaphores.get(key);
            if (s == null) {
                return 0;
            }
            s.expire(now());
            return s.available();
        } finally {
            lock.unlock();
        }
    }

    boolean trySetPermits(String key, int permits) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            checkAvailable("trySetPermits", key);
            Semaphore s = semaphores.computeIfAbsent(key, Semaphore::new);
            if (s.set) {
                return false;
            }
            s.set = true;
            s.permits = permits;
            grantWaiters(s, now(), after);
            return true;
        } finally {
            lock.unlock();
            after.forEach(Runnable::run);
        }
    }

    void addPermits(String key, int permits) {
        List<Runnable> after = new ArrayList<>();
        lock.lock();
        try {
            checkAvailable("addPermits", key);
            Semaphore s = semaphores.computeIfAbsent(key, Semaphore::new);
            s.set = true;
            s.permits += permits;
            grantWaiters(s, now(), after);
        } finally {
            lock.unlock();
        }
        after.forEach(Runnable::run);
    }

    int drainPermits(String key) {
        lock.lock();
        try {
            checkAvailable("drainPermits", key);
            Semaphore s = semaphores.get(key);
            if (s == null) {
                return 0;
            }
            s.expire(now());
            int drained = Math.max(0, s.available());
            s.permits -= drained;
            return drained;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------- latches

    boolean trySetCount(String key, long count) {
        lock.lock();
        try {
            checkAvailable("trySetCount", key);
            Latch l = latches.computeIfAbsent(key, Latch::new);
            if (l.count > 0) {
                return false;
            }
            l.count = count;
            return true;
        } finally {
            lock.unlock();
        }
    }

    void countDown(String key) {
        List<CompletableFuture<Boolean>> open = new ArrayList<>();
        lock.lock();
        try {
            checkAvailable("countDown", key);
            Latch l = latches.get(key);
            if (l == null || l.count == 0) {
                return;
            }
            if (--l.count == 0) {
                open.addAll(l.waiters);
                l.waiters.clear();
            }
        } finally {
            lock.unlock();
        }
        for (CompletableFuture<Boolean> f : open) {
            f.complete(true);
        }
    }

    long getCount(String key) {
        lock.lock();
        try {
            checkAvailable("getCount", key);
            Latch l = latches.get(key);
            return l == null ? 0 : l.count;
        } finally {
            lock.unlock();
        }
    }

    /** Completes with {@code true} at zero, {@code false} at the deadline; cancel it to stop waiting. */
    CompletableFuture<Boolean> await(String key, long deadlineNanos) {
        CompletableFuture<Boolean> f = new CompletableFuture<>();
        lock.lock();
        try {
            checkAvailable("await", key);
            Latch l = latches.get(key);
            if (l == null || l.count == 0) {
                return CompletableFuture.completedFuture(true);
            }
            long now = now();
            if (deadlineNanos != Long.MAX_VALUE && deadlineNanos - now <= 0) {
                return CompletableFuture.completedFuture(false);
            }
            l.waiters.add(f);
            if (deadlineNanos != Long.MAX_VALUE) {
                ScheduledFuture<?> t = server.schedule(() -> f.complete(false), deadlineNanos - now);
                if (t != null) {
                    f.whenComplete((r, e) -> t.cancel(false));
                }
            }
        } finally {
            lock.unlock();
        }
        f.whenComplete((r, e) -> {
            if (!Boolean.TRUE.equals(r)) {
                lock.lock();
                try {
                    Latch l = latches.get(key);
                    if (l != null) {
                        l.waiters.remove(f);
                    }
                } finally {
                    lock.unlock();
                }
            }
        });
        return f;
    }

    // ---------------------------------------------------------------------------------------------- state

    private static final class Semaphore {
        final String key;
        /** Permits of the semaphore, leased ones included (for a permit-expirable semaphore). */
        int permits;
        boolean set;
        final Map<String, Long> leases = new HashMap<>();
        final ArrayDeque<SemWaiter> waiters = new ArrayDeque<>();
        ScheduledFuture<?> wake;
        long wakeAt;

        Semaphore(String key) {
            this.key = key;
        }

        int available() {
            return permits - leases.size();
        }

        void expire(long now) {
            for (Iterator<Long> it = leases.values().iterator(); it.hasNext(); ) {
                if (it.next() - now <= 0) {
                    it.remove();
                }
            }
        }

        /** Takes permits: plain ones leave the count, leased ones are recorded under a new id. */
        String take(int n, long leaseNanos, long now) {
            if (leaseNanos <= 0) {
                permits -= n;
                return "";
            }
            String id = UUID.randomUUID().toString();
            leases.put(id, now + leaseNanos);
            return id;
        }
    }

    private static final class SemWaiter {
        final int permits;
        final long leaseNanos;
        final CompletableFuture<String> future;
        ScheduledFuture<?> timeout;

        SemWaiter(int permits, long leaseNanos, CompletableFuture<String> future) {
            this.permits = permits;
            this.leaseNanos = leaseNanos;
            this.future = future;
        }

        void cancelTimeout() {
            if (timeout != null) {
                timeout.cancel(false);
            }
        }
    }

    private static final class Latch {
        final String key;
        long count;
        final List<CompletableFuture<Boolean>> waiters = new ArrayList<>();

        Latch(String key) {
            this.key = key;
        }
    }
}
