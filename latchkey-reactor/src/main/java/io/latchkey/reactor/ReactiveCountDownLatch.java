package io.latchkey.reactor;

import io.latchkey.DistributedCountDownLatch;
import java.time.Duration;
import java.util.Objects;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A distributed count-down latch for reactive code. {@link #await()} and {@link #countDown()} use the latch's futures
 * ({@link DistributedCountDownLatch#awaitAsync}: no thread waits) on every backend that offers them; elsewhere they,
 * like the other calls, run on a thread of the scheduler given to {@link ReactiveLockClient}. Cancelling an await
 * cancels its future (or interrupts the blocking wait).
 */
public final class ReactiveCountDownLatch {

    private final DistributedCountDownLatch latch;
    private final Scheduler scheduler;

    ReactiveCountDownLatch(DistributedCountDownLatch latch, Scheduler scheduler) {
        this.latch = latch;
        this.scheduler = scheduler;
    }

    /** {@return the latch's name, as given to the client} */
    public String name() {
        return latch.name();
    }

    /** {@return the underlying latch, for blocking calls or inspection} */
    public DistributedCountDownLatch unwrap() {
        return latch;
    }

    /**
     * Arms the latch with {@code count} if it is open (count zero); of clients racing to arm it, one wins.
     *
     * @param count the count, at least 1
     * @return a Mono of whether this call armed it ({@code false}: it was armed already)
     */
    public Mono<Boolean> trySetCount(long count) {
        return Acquisitions.blocking(scheduler, () -> latch.trySetCount(count));
    }

    /**
     * Lowers the count by one; at zero the latch opens and every waiter is woken. Does nothing on an open latch.
     *
     * @return a Mono that completes when the count-down is made
     */
    public Mono<Void> countDown() {
        return Acquisitions.preferFuture(latch::countDownAsync, () -> Acquisitions.blocking(scheduler, () -> {
            latch.countDown();
            return Boolean.TRUE;
        }).then());
    }

    /**
     * Reads the current count, on a thread of the scheduler.
     *
     * @return a Mono of a snapshot of the count; 0 for an open (or never armed) latch
     */
    public Mono<Long> getCount() {
        return Acquisitions.blocking(scheduler, latch::getCount);
    }

    /**
     * Waits until the count reaches zero, as long as needed.
     *
     * @return a Mono that completes when the latch is open (at once if it is open already)
     */
    public Mono<Void> await() {
        // 292 years: no deadline, as far as anyone waits
        return Acquisitions.preferFuture(() -> latch.awaitAsync(Duration.ofNanos(Long.MAX_VALUE)),
                () -> Acquisitions.blocking(scheduler, () -> {
                    latch.await();
                    return Boolean.TRUE;
                })).then();
    }

    /**
     * Waits at most {@code timeout} for the count to reach zero.
     *
     * @param timeout how long to wait at most
     * @return a Mono of {@code true} if the count reached zero within {@code timeout}, {@code false} otherwise
     * @throws NullPointerException if {@code timeout} is null
     */
    public Mono<Boolean> await(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return Acquisitions.preferFuture(() -> latch.awaitAsync(timeout),
                () -> Acquisitions.blocking(scheduler, () -> latch.await(timeout)));
    }

    @Override
    public String toString() {
        return "ReactiveCountDownLatch[" + latch.name() + "]";
    }
}
