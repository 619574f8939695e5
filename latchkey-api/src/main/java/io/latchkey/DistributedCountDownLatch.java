package io.latchkey;

import java.time.Duration;

/**
 * A count-down latch shared across clients, shaped like {@link java.util.concurrent.CountDownLatch}, with
 * {@link #trySetCount} to arm it. Waiters are woken by the backend when the count reaches zero.
 */
public interface DistributedCountDownLatch {

    /** The latch's name. */
    String name();

    /** Sets the count if the latch is not armed (count zero); returns whether it did. */
    boolean trySetCount(long count);

    /** Decrements the count; at zero, wakes every waiter. */
    void countDown();

    /** The current count. */
    long getCount();

    /** Waits until the count is zero. */
    void await() throws InterruptedException;

    /** Waits until the count is zero or {@code timeout} passes; returns whether it reached zero. */
    boolean await(Duration timeout) throws InterruptedException;
}
