package io.latchkey.core.mem;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The remote half of the mem semaphores, permit-expirable semaphores and latches: counts, leased permits with their
 * expiry on the server's clock ({@link System#nanoTime()}), kept by the {@link MemServer} under its lock. Nothing waits
 * here: each call looks once and answers (futures complete at once, failed with
 * {@link io.latchkey.LockUnavailableException} while the server is down), and the engine waits, woken by the key's
 * subscribers after any change that can let a waiter in and when the server goes down (the next look then fails). A
 * lease that runs out is no change anybody makes, so a refused lease answers when the earliest one ends and the
 * engine looks again then. Permits are not renewed by a watchdog ({@link #renewsPermits()} is {@code false}).
 */
final class MemCountOps implements RemoteCountOps {

    private final MemServer server;
    /** {@code kind NUL namespace NUL}: each kind and namespace has its own key space (see {@link MemLockOps}). */
    private final String prefix;

    MemCountOps(MemServer server, String kind, String namespace) {
        this.server = server;
        this.prefix = kind + '\u0000' + namespace + '\u0000';
    }

    /** A semaphore's state; guarded by the server's lock. */
    static final class Permits {
        /** Permits in total, leased ones included: 64-bit like every backend's count; reads saturate at int. */
        long permits;
        boolean set;
        final Map<String, Long> leases = new HashMap<>();

        long available(long now) {
            leases.values().removeIf(end -> end - now <= 0);
            return permits - leases.size();
        }
    }

    private <T> CompletableFuture<T> call(String operation, String name, Step<T> step) {
        String key = prefix + name;
        return server.call(operation, key, (now, changed) -> step.run(key, now, changed));
    }

    private interface Step<T> {
        T run(String key, long now, List<String> changed);
    }

    private Permits semaphore(String key) {
        return server.semaphores.computeIfAbsent(key, k -> new Permits());
    }

    /** The semaphore of {@code key} with its ended leases dropped, or {@code null} if it has none. */
    private Permits existing(String key, long now) {
        Permits s = server.semaphores.get(key);
        if (s != null) {
            s.available(now);
        }
        return s;
    }

    private static int saturated(long count) {
        return (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, count));
    }

    @Override
    public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
        return server.pushes.subscribe(prefix + name, changed);
    }

    @Override
    public CompletableFuture<Integer> availablePermits(String name) {
        return call("availablePermits", name, (key, now, changed) -> {
            Permits s = server.semaphores.get(key);
            return s == null ? 0 : saturated(s.available(now));
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
        return call("trySetPermits", name, (key, now, changed) -> {
            Permits s = semaphore(key);
            if (s.set) {
                return false;
            }
            s.set = true;
            s.permits = permits;
            changed.add(key);
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> addPermits(String name, int delta) {
        return addPermits("addPermits", name, delta);
    }

    private CompletableFuture<Void> addPermits(String operation, String name, int delta) {
        return call(operation, name, (key, now, changed) -> {
            Permits s = semaphore(key);
            s.set = true;
            s.permits += delta;
            changed.add(key);
            return null;
        });
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        return call("acquire", name, (key, now, changed) -> {
            Permits s = semaphore(key);
            if (s.available(now) < permits) {
                return false;
            }
            s.permits -= permits;
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        return addPermits("release", name, permits);
    }

    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return call("drainPermits", name, (key, now, changed) -> {
            Permits s = server.semaphores.get(key);
            if (s == null) {
                return 0;
            }
            long drained = Math.max(0, s.available(now));
            s.permits -= drained;
            return saturated(drained);
        });
    }

    /** Takes one permit leased under {@code permitId}, or answers when the earliest lease ends (busy without any). */
    @Override
    public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
        if (watchdog) {
            throw new UnsupportedOperationException("the mem backend does not renew permits");
        }
        long sentAt = System.nanoTime();
        return call("acquire", name, (key, now, changed) -> {
            Permits s = semaphore(key);
            if (s.available(now) < 1 || s.leases.containsKey(permitId)) {
                long soonest = Long.MAX_VALUE;
                for (long end : s.leases.values()) {
                    soonest = Math.min(soonest, Math.max(1, end - now));
                }
                return Attempt.busy(soonest == Long.MAX_VALUE ? 0 : soonest);
            }
            s.leases.put(permitId, now + TimeUnit.MILLISECONDS.toNanos(leaseMillis));
            return Attempt.granted(new Grant(name, permitId, ++server.permitTokens, leaseMillis, false, sentAt,
                    null));
        });
    }

    /** Returns a leased permit; {@code false} if it had expired or was released. */
    @Override
    public CompletableFuture<Boolean> release(String name, String permitId) {
        return call("release", name, (key, now, changed) -> {
            Permits s = existing(key, now);
            boolean released = s != null && s.leases.remove(permitId) != null;
            if (released) {
                changed.add(key);
            }
            return released;
        });
    }

    /** A new lease from now; a shorter one tells the subscribers (they look again for its end). */
    @Override
    public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
        return call("updateLease", name, (key, now, changed) -> {
            Permits s = existing(key, now);
            Long before = s == null ? null : s.leases.get(permitId);
            if (before == null) {
                return false;
            }
            long end = now + TimeUnit.MILLISECONDS.toNanos(leaseMillis);
            s.leases.put(permitId, end);
            if (end - before < 0) {
                changed.add(key);
            }
            return true;
        });
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return call("trySetCount", name, (key, now, changed) -> {
            if (server.latches.getOrDefault(key, 0L) > 0) {
                return false;
            }
            server.latches.put(key, count);
            return true;
        });
    }

    /** Counts down unless open; the count-down to zero removes the latch and tells the subscribers. */
    @Override
    public CompletableFuture<Void> countDown(String name) {
        return call("countDown", name, (key, now, changed) -> {
            Long count = server.latches.get(key);
            if (count != null && count == 1) {
                server.latches.remove(key);
                changed.add(key);
            } else if (count != null && count > 1) {
                server.latches.put(key, count - 1);
            }
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return call("getCount", name, (key, now, changed) -> server.latches.getOrDefault(key, 0L));
    }
}
