package io.latchkey.core.mem;

import io.latchkey.LockUnavailableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The mem server's state of semaphores, permit-expirable semaphores and count-down latches: counts, leased permits
 * with their expiry on the server's clock ({@link System#nanoTime()}), and the subscribers of each key. Nothing waits
 * here: every operation looks once and answers ({@link MemCountOps}), and the engine waits, woken by the
 * subscribers' callbacks after any change that can let a waiter in and when the server goes down (the next look then
 * fails); a lease that runs out is no change anybody makes, so a refused lease answers when the earliest one ends
 * and the engine looks again then. One {@link ReentrantLock} guards the state; subscribers are called after it is
 * released.
 */
final class MemCountStore {

    private final MemServer server;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, Semaphore> semaphores = new HashMap<>();
    private final Map<String, Long> latches = new HashMap<>();
    private final Map<String, List<Runnable>> subscribers = new HashMap<>();
    private long permitTokens;

    MemCountStore(MemServer server) {
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
        int nul = key.lastIndexOf('\u0000');
        return nul >= 0 ? key.substring(nul + 1) : key;
    }

    /** The server went down: every subscriber looks again (and fails). */
    void failAll() {
        List<Runnable> all = new ArrayList<>();
        lock.lock();
        try {
            subscribers.values().forEach(all::addAll);
        } finally {
            lock.unlock();
        }
        all.forEach(Runnable::run);
    }

    // ---------------------------------------------------------------------------------------------- subscribers

    /** Calls {@code changed} after every change of {@code key} that may let a waiter in; returns the unsubscribe. */
    Runnable subscribe(String key, Runnable changed) {
        lock.lock();
        try {
            subscribers.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(changed);
        } finally {
            lock.unlock();
        }
        return () -> {
            lock.lock();
            try {
                List<Runnable> l = subscribers.get(key);
                if (l != null && l.remove(changed) && l.isEmpty()) {
                    subscribers.remove(key);
                }
            } finally {
                lock.unlock();
            }
        };
    }

    private List<Runnable> subscribersLocked(String key) {
        List<Runnable> l = subscribers.get(key);
        return l == null ? List.of() : List.copyOf(l);
    }

    private static void notify(List<Runnable> subscribers) {
        subscribers.forEach(Runnable::run);
    }

    // ---------------------------------------------------------------------------------------------- semaphores

    private Semaphore semaphore(String key) {
        return semaphores.computeIfAbsent(key, Semaphore::new);
    }

    /** Takes {@code permits} unowned permits if that many are available now. */
    boolean tryTake(String key, int permits) {
        lock.lock();
        try {
            checkAvailable("acquire", key);
            Semaphore s = semaphore(key);
            s.expire(now());
            if (s.available() < permits) {
                return false;
            }
            s.permits -= permits;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes one permit leased for {@code leaseNanos} under {@code permitId}: its token (positive), or if none is free
     * minus the nanoseconds until the earliest lease ends (0 without leases).
     */
    long tryLease(String key, String permitId, long leaseNanos) {
        lock.lock();
        try {
            checkAvailable("acquire", key);
            Semaphore s = semaphore(key);
            long now = now();
            s.expire(now);
            if (s.available() < 1 || s.leases.containsKey(permitId)) {
                long soonest = Long.MAX_VALUE;
                for (long expiresAt : s.leases.values()) {
                    soonest = Math.min(soonest, Math.max(1, expiresAt - now));
                }
                return soonest == Long.MAX_VALUE ? 0 : -soonest;
            }
            s.leases.put(permitId, now + leaseNanos);
            return ++permitTokens;
        } finally {
            lock.unlock();
        }
    }

    /** Returns unowned permits. */
    void give(String key, int permits) {
        addPermits(key, permits, "release");
    }

    /** Returns a leased permit; {@code false} if it had expired or was released. */
    boolean release(String key, String permitId) {
        List<Runnable> told = List.of();
        lock.lock();
        try {
            checkAvailable("release", key);
            Semaphore s = semaphores.get(key);
            if (s == null) {
                return false;
            }
            s.expire(now());
            boolean released = s.leases.remove(permitId) != null;
            if (released) {
                told = subscribersLocked(key);
            }
            return released;
        } finally {
            lock.unlock();
            notify(told);
        }
    }

    /** A new lease from now; a shorter one tells the subscribers (they look again for its end). */
    boolean updateLease(String key, String permitId, long leaseNanos) {
        List<Runnable> told = List.of();
        lock.lock();
        try {
            checkAvailable("updateLease", key);
            Semaphore s = semaphores.get(key);
            if (s == null) {
                return false;
            }
            long now = now();
            s.expire(now);
            Long before = s.leases.get(permitId);
            if (before == null) {
                return false;
            }
            s.leases.put(permitId, now + leaseNanos);
            if (now + leaseNanos - before < 0) {
                told = subscribersLocked(key);
            }
            return true;
        } finally {
            lock.unlock();
            notify(told);
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
            return saturated(s.available());
        } finally {
            lock.unlock();
        }
    }

    boolean trySetPermits(String key, int permits) {
        List<Runnable> told = List.of();
        lock.lock();
        try {
            checkAvailable("trySetPermits", key);
            Semaphore s = semaphore(key);
            if (s.set) {
                return false;
            }
            s.set = true;
            s.permits = permits;
            told = subscribersLocked(key);
            return true;
        } finally {
            lock.unlock();
            notify(told);
        }
    }

    void addPermits(String key, int permits) {
        addPermits(key, permits, "addPermits");
    }

    private void addPermits(String key, int permits, String operation) {
        List<Runnable> told;
        lock.lock();
        try {
            checkAvailable(operation, key);
            Semaphore s = semaphore(key);
            s.set = true;
            s.permits += permits;
            told = subscribersLocked(key);
        } finally {
            lock.unlock();
        }
        notify(told);
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
            long drained = Math.max(0, s.available());
            s.permits -= drained;
            return saturated(drained);
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------------------------------------- latches

    boolean trySetCount(String key, long count) {
        lock.lock();
        try {
            checkAvailable("trySetCount", key);
            if (latches.getOrDefault(key, 0L) > 0) {
                return false;
            }
            latches.put(key, count);
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Counts down unless open; the count-down to zero removes the latch and tells the subscribers. */
    void countDown(String key) {
        List<Runnable> told = List.of();
        lock.lock();
        try {
            checkAvailable("countDown", key);
            Long count = latches.get(key);
            if (count == null || count <= 0) {
                return;
            }
            if (count == 1) {
                latches.remove(key);
                told = subscribersLocked(key);
            } else {
                latches.put(key, count - 1);
            }
        } finally {
            lock.unlock();
            notify(told);
        }
    }

    long getCount(String key) {
        lock.lock();
        try {
            checkAvailable("getCount", key);
            return latches.getOrDefault(key, 0L);
        } finally {
            lock.unlock();
        }
    }

    private static int saturated(long count) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, count));
    }

    // ---------------------------------------------------------------------------------------------- state

    private static final class Semaphore {
        final String key;
        /**
         * Permits of the semaphore, leased ones included (for a permit-expirable semaphore): 64-bit like every
         * backend's count; reads saturate at the int range.
         */
        long permits;
        boolean set;
        final Map<String, Long> leases = new HashMap<>();

        Semaphore(String key) {
            this.key = key;
        }

        long available() {
            return permits - leases.size();
        }

        void expire(long now) {
            for (Iterator<Long> it = leases.values().iterator(); it.hasNext(); ) {
                if (it.next() - now <= 0) {
                    it.remove();
                }
            }
        }
    }
}
