package io.latchkey.spring;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/** A bean with {@link Locked} methods; {@code inside} counts callers inside per test. */
public class LockedTestService {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger maxInside = new AtomicInteger();

    /** Callers inside {@link #ship} now (a method, so that it reaches the target through the class proxy). */
    public int inside() {
        return inside.get();
    }

    /** The most callers ever inside {@link #ship} at once. */
    public int maxInside() {
        return maxInside.get();
    }

    /** Holds the order's lock until {@code release} opens; {@code entered} opens once inside. */
    @Locked(name = "'order:' + #orderId")
    public String ship(long orderId, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        int now = inside.incrementAndGet();
        maxInside.accumulateAndGet(now, Math::max);
        entered.countDown();
        try {
            if (!release.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("test never released the call");
            }
            return "shipped " + orderId;
        } finally {
            inside.decrementAndGet();
        }
    }

    @Locked(name = "'order:' + #orderId", waitTime = 100)
    public String shipOrGiveUp(long orderId) {
        return "shipped " + orderId;
    }

    @Locked(name = "'order:' + #orderId", waitTime = 0)
    public String shipNow(long orderId) {
        return "shipped " + orderId;
    }

    /** Reentrant: calls through the proxy again on the same name. */
    @Locked(name = "'outer:' + #p0")
    public String outer(String key, LockedTestService self) {
        return self.inner(key);
    }

    @Locked(name = "'outer:' + #key")
    public String inner(String key) {
        return "inner " + key;
    }

    /** What {@link LockedRun} shows inside a {@code @Locked} method: name, token, validity. */
    public record Seen(String name, long token, boolean valid, boolean heldAfterwardsByLockApi) {
    }

    @Locked(name = "'fenced:' + #key")
    public Seen fenced(String key) {
        io.latchkey.LockLease lease = LockedRun.currentLease().orElseThrow();
        return new Seen(lease.lockName(), lease.fencingToken(), LockedRun.isLockValid(), false);
    }

    /** The outer call's lease, then the nested call's: the same lease on the same name. */
    @Locked(name = "'fenced:' + #key")
    public Seen[] fencedNested(String key, LockedTestService self) {
        Seen outer = self.fenced(key);
        io.latchkey.LockLease lease = LockedRun.currentLease().orElseThrow();
        return new Seen[] {outer, new Seen(lease.lockName(), lease.fencingToken(), LockedRun.isLockValid(), false)};
    }

    @Locked(name = "'failing'")
    public void fails() {
        throw new UnsupportedOperationException("boom");
    }

    /** A fixed 150 ms lease that the method outlives: it returns only once the lease has expired. */
    @Locked(name = "'short-lease'", leaseTime = 150)
    public String outlivesLease(BooleanSupplier expired) {
        awaitExpiry(expired);
        return "done";
    }

    @Locked(name = "'short-lease-tolerated'", leaseTime = 150, failIfLost = false)
    public String outlivesLeaseTolerated(BooleanSupplier expired) {
        awaitExpiry(expired);
        return "done";
    }

    @Locked(name = "report")
    public void unquotedConstant() {
    }

    @Locked(name = "'unclosed")
    public void unparsable() {
    }

    @Locked(name = "#key")
    public void nullName(String key) {
    }

    private static void awaitExpiry(BooleanSupplier expired) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!expired.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("lease never expired");
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
