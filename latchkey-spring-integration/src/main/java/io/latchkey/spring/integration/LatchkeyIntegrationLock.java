package io.latchkey.spring.integration;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.function.Supplier;
import org.springframework.integration.support.locks.DistributedLock;

/**
 * Spring Integration's {@link DistributedLock} view of one Latchkey lock: the thread-owned, reentrant
 * {@link io.latchkey.DistributedLock}, plus which of its holders took a fixed lease (those cannot be renewed) and
 * when it was last used (for {@link LatchkeyLockRegistry#expireUnusedOlderThan(long)}).
 */
final class LatchkeyIntegrationLock implements DistributedLock {

    private final io.latchkey.DistributedLock lock;
    private final Supplier<Duration> defaultTtl;
    /** Threads of this JVM holding the lock through this object, and whether their outermost hold is fixed. */
    private final Map<Thread, Boolean> fixedHold = new ConcurrentHashMap<>();
    private final AtomicInteger holders = new AtomicInteger();
    private volatile long lastUsedMillis = System.currentTimeMillis();

    LatchkeyIntegrationLock(io.latchkey.DistributedLock lock, Supplier<Duration> defaultTtl) {
        this.lock = lock;
        this.defaultTtl = defaultTtl;
    }

    @Override
    public void lock() {
        Duration ttl = defaultTtl.get();
        if (ttl == null) {
            lock.lock();
        } else {
            lock.lock(ttl);
        }
        acquired(ttl != null);
    }

    @Override
    public void lock(Duration ttl) {
        lock.lock(requirePositive(ttl));
        acquired(true);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        Duration ttl = defaultTtl.get();
        if (ttl == null) {
            lock.lockInterruptibly();
        } else {
            while (!lock.tryLock(Duration.ofDays(1), ttl)) {
                // a day passed without the lock: keep waiting, as lockInterruptibly() does
            }
        }
        acquired(ttl != null);
    }

    @Override
    public boolean tryLock() {
        Duration ttl = defaultTtl.get();
        boolean got;
        if (ttl == null) {
            got = lock.tryLock();
        } else {
            try {
                got = lock.tryLock(Duration.ZERO, ttl);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                got = false;
            }
        }
        if (got) {
            acquired(ttl != null);
        }
        return got;
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        Duration ttl = defaultTtl.get();
        boolean got = ttl == null
                ? lock.tryLock(time, unit)
                : lock.tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), ttl);
        if (got) {
            acquired(ttl != null);
        }
        return got;
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        boolean got = lock.tryLock(waitTime, requirePositive(ttl));
        if (got) {
            acquired(true);
        }
        return got;
    }

    @Override
    public void unlock() {
        boolean last = lock.getHoldCount() == 1;
        try {
            lock.unlock();
        } finally {
            if (last && fixedHold.remove(Thread.currentThread()) != null) {
                holders.decrementAndGet();
            }
            touch();
        }
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Conditions are not supported by distributed locks ('"
                + lock.name() + "')");
    }

    boolean isHeldByCurrentThread() {
        return lock.isHeldByCurrentThread();
    }

    void renew() {
        if (Boolean.TRUE.equals(fixedHold.get(Thread.currentThread()))) {
            throw new UnsupportedOperationException(String.format("lock '%s' was taken with a fixed TTL, which "
                    + "Latchkey cannot extend; take it without a TTL to have the watchdog renew it", lock.name()));
        }
        // watchdog-renewed: nothing to do
    }

    void touch() {
        lastUsedMillis = System.currentTimeMillis();
    }

    boolean isUnusedSince(long cutoffMillis) {
        return holders.get() == 0 && lastUsedMillis < cutoffMillis;
    }

    private void acquired(boolean fixed) {
        if (fixedHold.putIfAbsent(Thread.currentThread(), fixed) == null) {
            holders.incrementAndGet();
        }
        touch();
    }

    private static Duration requirePositive(Duration ttl) {
        if (ttl == null || ttl.isZero() || ttl.isNegative()) {
            throw new IllegalArgumentException(String.format("ttl must be positive but was %s", ttl));
        }
        return ttl;
    }

    @Override
    public String toString() {
        return "LatchkeyIntegrationLock[" + lock.name() + "]";
    }
}
