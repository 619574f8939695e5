package io.latchkey.micronaut;

import io.latchkey.LockLease;
import jakarta.inject.Singleton;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** The test application's @Locked methods. */
@Singleton
public class Orders {

    /** Holds order:{orderId} until {@code release} opens, after opening {@code entered}. */
    @Locked(name = "order:{orderId}", waitTime = "0s")
    public String hold(long orderId, CountDownLatch entered, CountDownLatch release) throws InterruptedException {
        entered.countDown();
        if (!release.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("not released");
        }
        return LockedRun.currentLease().map(LockLease::lockName).orElse("none");
    }

    /** The fencing token of this call's lease. */
    @Locked(name = "order:{orderId}", waitTime = "5s")
    public long token(long orderId) {
        return LockedRun.currentLease().orElseThrow().fencingToken();
    }

    /** The lease this call runs under, over a property of an argument. */
    @Locked(name = "account:{transfer.from}", leaseTime = "PT30S")
    public LockLease transfer(Transfer transfer) {
        return LockedRun.currentLease().orElseThrow();
    }

    /** A transfer between two accounts. */
    public record Transfer(String from, String to) {
    }
}
