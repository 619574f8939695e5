package io.latchkey.quarkus.deployment;

import io.latchkey.LockLease;
import io.latchkey.quarkus.Locked;
import io.latchkey.quarkus.LockedRun;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The application's {@code @Locked} methods in the extension tests. */
@ApplicationScoped
public class OrderService {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();

    /** {@return the most calls of {@link #count} that were inside at once} (a method: callers hold a client proxy) */
    public int mostInside() {
        return mostInside.get();
    }

    /** Holds order:{id} until {@code release} opens. */
    @Locked(name = "order:{id}")
    public void hold(String id, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        entered.countDown();
        release.await(10, TimeUnit.SECONDS);
    }

    /** The lease this call held, tried for at most 100 ms. */
    @Locked(name = "order:{id}", waitTime = "100ms")
    public LockLease ship(String id) {
        return LockedRun.currentLease().orElseThrow();
    }

    /** Counts how many calls are inside at once. */
    @Locked(name = "counter:{id}", waitTime = "10s")
    public void count(String id) throws InterruptedException {
        int now = inside.incrementAndGet();
        mostInside.accumulateAndGet(now, Math::max);
        Thread.sleep(5);
        inside.decrementAndGet();
    }
}
