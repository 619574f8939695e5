package io.latchkey.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/**
 * On a backend whose counted primitives run on the engine (here {@code mem://}), the reactive semaphores and latch
 * wait through the primitives' futures: no scheduler thread is taken (the scheduler given refuses every task), and
 * cancelling a pending acquisition withdraws it without leaving a permit taken.
 */
class ReactiveCountedFuturesTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final AtomicInteger scheduled = new AtomicInteger();
    private LockClient client;
    private ReactiveLockClient rx;

    @BeforeEach
    void open() {
        client = LockClient.connect("mem://rx-" + UUID.randomUUID());
        Scheduler refusing = Schedulers.fromExecutor(task -> {
            scheduled.incrementAndGet();
            throw new RejectedExecutionException("a waiting call took a scheduler thread");
        });
        rx = ReactiveLockClient.of(client, refusing);
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void semaphoreAcquireWaitsWithoutAThreadAndACancelledWaiterTakesNothing() {
        ReactiveSemaphore semaphore = rx.semaphore("pool");
        assertThat(semaphore.unwrap().trySetPermits(1)).isTrue();
        StepVerifier.create(semaphore.acquire(1)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(semaphore.tryAcquire(1, Duration.ofMillis(100))).expectNext(false).expectComplete().verify(TIMEOUT);

        Disposable pending = semaphore.acquire(1).subscribe();
        StepVerifier.create(semaphore.release(1)).expectComplete().verify(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> semaphore.unwrap().availablePermits() == 0);
        pending.dispose();
        StepVerifier.create(semaphore.release(1)).expectComplete().verify(TIMEOUT);

        StepVerifier.create(semaphore.acquire(1)).expectComplete().verify(TIMEOUT); // the free permit
        Disposable cancelled = semaphore.acquire(1).subscribe();
        cancelled.dispose(); // still waiting: withdrawn
        StepVerifier.create(semaphore.release(1)).expectComplete().verify(TIMEOUT);
        await().during(Duration.ofMillis(300)).atMost(TIMEOUT)
                .until(() -> semaphore.unwrap().availablePermits() == 1); // the withdrawn waiter took nothing
        assertThat(scheduled).hasValue(0);
    }

    @Test
    void permitsAndTheLatchWaitWithoutAThread() {
        ReactivePermitExpirableSemaphore permits = rx.permitExpirableSemaphore("slots");
        assertThat(permits.unwrap().trySetPermits(1)).isTrue();
        String id = permits.acquire(Duration.ofSeconds(10)).block(TIMEOUT);
        assertThat(id).isNotBlank();
        StepVerifier.create(permits.tryAcquire(Duration.ofMillis(100), Duration.ofSeconds(1))).expectComplete().verify(TIMEOUT);
        StepVerifier.create(permits.release(id)).expectNext(true).expectComplete().verify(TIMEOUT);
        StepVerifier.create(permits.tryAcquire(Duration.ZERO, Duration.ofSeconds(1)))
                .assertNext(other -> permits.unwrap().release(other)).expectComplete().verify(TIMEOUT);

        ReactiveCountDownLatch latch = rx.countDownLatch("start");
        assertThat(latch.unwrap().trySetCount(2)).isTrue();
        StepVerifier.create(latch.await(Duration.ofMillis(100))).expectNext(false).expectComplete().verify(TIMEOUT);
        StepVerifier.create(latch.await())
                .then(() -> latch.countDown().block(TIMEOUT))
                .then(() -> latch.countDown().block(TIMEOUT))
                .expectComplete().verify(TIMEOUT);
        assertThat(scheduled).hasValue(0);
    }
}
