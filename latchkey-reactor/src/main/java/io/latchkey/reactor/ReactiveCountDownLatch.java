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

    public String name() {
        return latch.name();
    }

    public DistributedCountDownLatch unwrap() {
        return latch;
    }

    public Mono<Boolean> trySetCount(long count) {
        return Acquisitions.blocking(scheduler, () -> latch.trySetCount(count));
    }

    public Mono<Void> countDown() {
        return Acquisitions.preferFuture(latch::countDownAsync, () -> Acquisitions.blocking(scheduler, () -> {
            latch.countDown();
            return Boolean.TRUE;
        }).then());
    }

    public Mono<Long> getCount() {
        return Acquisitions.blocking(scheduler, latch::getCount);
    }

    /** Completes when the count reaches zero. */
    public Mono<Void> await() {
        // 292 years: no deadline, as far as anyone waits
        return Acquisitions.preferFuture(() -> latch.awaitAsync(Duration.ofNanos(Long.MAX_VALUE)),
                () -> Acquisitions.blocking(scheduler, () -> {
                    latch.await();
                    return Boolean.TRUE;
                })).then();
    }

    /** {@code true} if the count reached zero within {@code timeout}. */
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
