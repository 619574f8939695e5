package io.latchkey.reactor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** Every primitive through {@link ReactiveLockClient}, with StepVerifier, against a real redis-server. */
class ReactiveLockClientTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private static RedisServer redis;
    private static LockClient clientA;
    private static LockClient clientB;
    private static ReactiveLockClient a;
    private static ReactiveLockClient b;

    @BeforeAll
    static void start() {
        redis = RedisServer.standalone().start();
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(1)).build();
        clientA = LockClient.connect(redis.uri(), options);
        clientB = LockClient.connect(redis.uri(), options);
        a = ReactiveLockClient.of(clientA);
        b = ReactiveLockClient.of(clientB);
    }

    @AfterAll
    static void stop() {
        clientA.close();
        clientB.close();
        redis.close();
    }

    @Test
    void acquireAndReleaseAreMonos() {
        ReactiveLock lock = a.lock("rx-basic");
        LockLease lease = lock.acquire().block(TIMEOUT);
        assertThat(lease).isNotNull();
        assertThat(lease.isValid()).isTrue();
        StepVerifier.create(b.lock("rx-basic").tryAcquire(Duration.ofMillis(100))).expectComplete().verify(TIMEOUT);
        StepVerifier.create(lock.release(lease)).expectComplete().verify(TIMEOUT);
        StepVerifier.create(b.lock("rx-basic").tryAcquire(Duration.ZERO, Duration.ofSeconds(5)))
                .assertNext(other -> {
                    assertThat(other.fencingToken()).isGreaterThan(lease.fencingToken());
                    other.release();
                })
                .expectComplete().verify(TIMEOUT);
        // the lease is the owner, not the thread: released from another thread than the one that acquired
        LockLease fixed = lock.acquire(Duration.ofSeconds(5)).block(TIMEOUT);
        StepVerifier.create(Mono.just(fixed).publishOn(reactor.core.scheduler.Schedulers.parallel())
                .flatMap(lock::release)).expectComplete().verify(TIMEOUT);
    }

    @Test
    void withLockHoldsForTheBodyAndReleasesAfter() {
        ReactiveLock lock = a.lock("rx-with");
        StepVerifier.create(lock.withLock(lease -> b.lock("rx-with").tryAcquire(Duration.ZERO)
                        .map(other -> "other got it").defaultIfEmpty("held")))
                .expectNext("held").expectComplete().verify(TIMEOUT);
        assertThat(lock.unwrap().isLocked()).isFalse();

        StepVerifier.create(lock.withLockMany(lease -> Flux.just(1, 2, 3)
                        .doOnNext(i -> assertThat(lease.isValid()).isTrue())))
                .expectNext(1, 2, 3).expectComplete().verify(TIMEOUT);
        assertThat(lock.unwrap().isLocked()).isFalse();

        StepVerifier.create(lock.withLock(lease -> Mono.error(new IllegalStateException("body failed"))))
                .expectErrorMessage("body failed").verify(TIMEOUT);
        assertThat(lock.unwrap().isLocked()).isFalse();
    }

    @Test
    void cancellingTheBodyReleasesTheLock() {
        ReactiveLock lock = a.lock("rx-cancel-body");
        AtomicBoolean entered = new AtomicBoolean();
        StepVerifier.create(lock.withLock(lease -> {
                    entered.set(true);
                    return Mono.never();
                }))
                .then(() -> await().atMost(TIMEOUT).untilTrue(entered))
                .thenCancel().verify(TIMEOUT);
        await().atMost(TIMEOUT).until(() -> !lock.unwrap().isLocked());
    }

    @Test
    void cancellingAPendingAcquireAbandonsItWithoutLeavingALock() {
        LockLease holder = a.lock("rx-cancel-wait").acquire().block(TIMEOUT);
        StepVerifier.create(b.lock("rx-cancel-wait").acquire())
                .expectSubscription().expectNoEvent(Duration.ofMillis(300))
                .thenCancel().verify(TIMEOUT);
        StepVerifier.create(b.semaphore("rx-cancel-sem").trySetPermits(0)).expectNextCount(1).verifyComplete();
        StepVerifier.create(b.semaphore("rx-cancel-sem").acquire(1))
                .expectSubscription().expectNoEvent(Duration.ofMillis(300))
                .thenCancel().verify(TIMEOUT);
        holder.release();
        await().atMost(TIMEOUT).pollDelay(Duration.ofMillis(300)).until(() -> !a.lock("rx-cancel-wait").unwrap()
                .isLocked());
        a.semaphore("rx-cancel-sem").release(1).block(TIMEOUT);
        assertThat(a.semaphore("rx-cancel-sem").availablePermits().block(TIMEOUT)).isEqualTo(1);
    }

    @Test
    void aLockLostDuringTheBodyCancelsItAndFailsWithLockLost() {
        ReactiveLock lock = a.lock("rx-lost");
        AtomicBoolean cancelled = new AtomicBoolean();
        StepVerifier.create(lock.withLock(lease -> {
                    // an administrator takes the lock away; the watchdog's next renewal finds out
                    b.lock("rx-lost").unwrap().forceUnlock();
                    return Mono.never().doOnCancel(() -> cancelled.set(true));
                }))
                .expectError(LockLostException.class).verify(TIMEOUT);
        assertThat(cancelled).isTrue();
    }

    @Test
    void tryAcquireTimesOutEmpty() {
        LockLease holder = a.lock("rx-try").acquire().block(TIMEOUT);
        try {
            StepVerifier.create(b.lock("rx-try").tryWithLock(Duration.ofMillis(200), lease -> Mono.just("ran")))
                    .expectComplete().verify(TIMEOUT);
        } finally {
            holder.release();
        }
        StepVerifier.create(b.lock("rx-try").tryWithLock(Duration.ofSeconds(5), lease -> Mono.just("ran")))
                .expectNext("ran").expectComplete().verify(TIMEOUT);
    }

    @Test
    void semaphoresPermitsLatchesAndReadWriteLocks() {
        ReactiveSemaphore semaphore = a.semaphore("rx-sem");
        StepVerifier.create(semaphore.trySetPermits(2)).expectNext(true).verifyComplete();
        StepVerifier.create(semaphore.withPermits(2, () -> b.semaphore("rx-sem").tryAcquire(1, Duration.ZERO)))
                .expectNext(false).verifyComplete();
        StepVerifier.create(semaphore.availablePermits()).expectNext(2).verifyComplete();

        ReactivePermitExpirableSemaphore permits = a.permitExpirableSemaphore("rx-permits");
        StepVerifier.create(permits.trySetPermits(1)).expectNext(true).verifyComplete();
        String id = permits.acquire(Duration.ofSeconds(10)).block(TIMEOUT);
        StepVerifier.create(b.permitExpirableSemaphore("rx-permits").tryAcquire(Duration.ZERO, Duration.ofSeconds(1)))
                .verifyComplete();
        StepVerifier.create(permits.release(id)).expectNext(true).verifyComplete();
        StepVerifier.create(permits.withPermit(Duration.ofSeconds(10), permit -> Mono.just(permit.isEmpty())))
                .expectNext(false).verifyComplete();

        ReactiveCountDownLatch latch = a.countDownLatch("rx-latch");
        StepVerifier.create(latch.trySetCount(2)).expectNext(true).verifyComplete();
        StepVerifier.create(b.countDownLatch("rx-latch").await())
                .then(() -> latch.countDown().block(TIMEOUT))
                .then(() -> latch.countDown().block(TIMEOUT))
                .expectComplete().verify(TIMEOUT);
        StepVerifier.create(latch.getCount()).expectNext(0L).verifyComplete();

        ReactiveReadWriteLock rw = a.readWriteLock("rx-rw");
        List<LockLease> readers = Flux.merge(rw.readLock().acquire(), b.readWriteLock("rx-rw").readLock().acquire())
                .collectList().block(TIMEOUT);
        assertThat(readers).hasSize(2);
        StepVerifier.create(b.readWriteLock("rx-rw").writeLock().tryAcquire(Duration.ZERO)).verifyComplete();
        readers.forEach(LockLease::release);
        StepVerifier.create(b.readWriteLock("rx-rw").writeLock().withLock(lease -> Mono.just("written")))
                .expectNext("written").verifyComplete();
    }
}
