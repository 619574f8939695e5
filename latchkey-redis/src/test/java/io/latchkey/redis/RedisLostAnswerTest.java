package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.request;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockUnavailableException;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An acquire that the server ran after its client had given up on the answer — the server frozen (SIGSTOP) past the
 * operation timeout, so the attempt waited in its input and ran once it was let go (SIGCONT) — leaves no hold behind:
 * the engine cleans it up by the attempt's id, so another client takes the lock right after the server runs again
 * instead of a watchdog timeout later; and the clean-up never removes a later hold of the same owner.
 */
class RedisLostAnswerTest {

    // Per test: the server is frozen.
    @RegisterExtension
    RedisServerExtension redis = RedisServerExtension.standalone();

    private static final Duration OP_TIMEOUT = Duration.ofSeconds(1);
    private static final Duration PAUSE = Duration.ofSeconds(3);

    private static ClientOptions options() {
        return ClientOptions.builder().operationTimeout(OP_TIMEOUT).watchdogTimeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void aLockTakenForAnAttemptThatTimedOutIsFreeOnceTheServerRunsAgain() throws Exception {
        try (RedisLockClient b = RedisLockClient.connect(redis.uri(), options());
             RedisLockClient a = RedisLockClient.connect(redis.uri(), options())) {
            String name = uniqueName("lost-answer");
            DistributedLock lockB = b.lock(name);
            // the scripts are in the server's cache (as on any server in use): the frozen attempt is an EVALSHA that
            // runs, not one that fails with NOSCRIPT
            lockB.lock();
            lockB.unlock();
            long thawedAt = timedOutWhileFrozen(() -> lockB.tryLock(2, TimeUnit.SECONDS));
            assertThat(lockB.isHeldByCurrentThread()).isFalse();
            DistributedLock lockA = a.lock(name);
            long tookMillis = millisUntilAcquired(lockA, thawedAt);
            System.out.printf("another client acquired the lock %d ms after the server ran again%n", tookMillis);
            assertThat(tookMillis).as("ms from the server running again to another client's grant")
                    .isLessThan(1_000);
            lockA.unlock();
        }
    }

    /**
     * The same for a read hold: its attempt id is noted beside it, so the clean-up removes it and a writer of another
     * client gets in right after the server runs again, not a watchdog timeout later.
     */
    @Test
    void aReadHoldTakenForAnAttemptThatTimedOutIsGoneOnceTheServerRunsAgain() throws Exception {
        try (RedisLockClient b = RedisLockClient.connect(redis.uri(), options());
             RedisLockClient a = RedisLockClient.connect(redis.uri(), options())) {
            String name = uniqueName("lost-read");
            DistributedLock readB = b.readWriteLock(name).readLock();
            readB.lock(); // the scripts are in the server's cache
            readB.unlock();
            long thawedAt = timedOutWhileFrozen(() -> readB.tryLock(2, TimeUnit.SECONDS));
            DistributedLock writeA = a.readWriteLock(name).writeLock();
            long tookMillis = millisUntilAcquired(writeA, thawedAt);
            System.out.printf("another client's writer got in %d ms after the server ran again%n", tookMillis);
            assertThat(tookMillis).as("ms from the server running again to the writer's grant").isLessThan(1_000);
            writeA.unlock();
            assertThat(redis.execute("EXISTS", b.synchronizers().readOps().keys(name).attempts)).as("no key left")
                    .isEqualTo(0L);
        }
    }

    /**
     * The same for a group script (the attempts of several threads queued behind one in flight): every member's
     * answer is lost with the group's, and each member's hold is cleaned up by its own attempt id.
     */
    @Test
    void theLocksTakenForAGroupWhoseAnswerWasLostAreFreeOnceTheServerRunsAgain() throws Exception {
        int threads = 6;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try (RedisLockClient b = RedisLockClient.connect(redis.uri(), options());
             RedisLockClient a = RedisLockClient.connect(redis.uri(), options())) {
            java.util.List<DistributedLock> locks = new java.util.ArrayList<>();
            for (int i = 0; i < threads; i++) {
                locks.add(b.lock(uniqueName("lost-group")));
            }
            // the lone and the group scripts are in the server's cache: calls held back by a pause form a group
            redis.pauseClients(Duration.ofMillis(200));
            runOnEach(pool, locks, lock -> {
                lock.lock();
                lock.unlock();
            });
            long frozenAt = System.nanoTime();
            redis.freeze();
            try {
                runOnEach(pool, locks, lock -> {
                    try {
                        assertThat(lock.tryLock(2, TimeUnit.SECONDS)).isFalse();
                    } catch (LockUnavailableException expected) {
                        // the answer was lost
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                    assertThat(lock.isHeldByCurrentThread()).isFalse();
                });
                TimeUnit.NANOSECONDS.sleep(Math.max(0, PAUSE.toNanos() - (System.nanoTime() - frozenAt)));
            } finally {
                redis.thaw();
            }
            long thawedAt = System.nanoTime();
            long tookMillis = 0;
            for (DistributedLock lock : locks) {
                DistributedLock other = a.lock(lock.name());
                tookMillis = millisUntilAcquired(other, thawedAt);
                other.unlock();
            }
            System.out.printf("another client acquired every lock %d ms after the server ran again%n", tookMillis);
            assertThat(tookMillis).as("ms from the server running again to the last grant").isLessThan(1_500);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Freezes the server for {@link #PAUSE}, during which {@code attempt} gives up on its answer
     * ({@link LockUnavailableException}); returns when the server ran again ({@link System#nanoTime()}).
     */
    private long timedOutWhileFrozen(org.assertj.core.api.ThrowableAssert.ThrowingCallable attempt) throws Exception {
        long frozenAt = System.nanoTime();
        redis.freeze();
        try {
            assertThatThrownBy(attempt).isInstanceOf(LockUnavailableException.class);
            TimeUnit.NANOSECONDS.sleep(Math.max(0, PAUSE.toNanos() - (System.nanoTime() - frozenAt)));
        } finally {
            redis.thaw();
        }
        return System.nanoTime();
    }

    /** Ms from {@code since} until {@code lock} was acquired (it is tried for 15 s; not acquired by then fails). */
    private static long millisUntilAcquired(DistributedLock lock, long since) throws InterruptedException {
        boolean acquired = false;
        while (!acquired && System.nanoTime() - since < TimeUnit.SECONDS.toNanos(15)) {
            acquired = lock.tryLock(100, TimeUnit.MILLISECONDS);
        }
        assertThat(acquired).as("%s acquired by another client", lock.name()).isTrue();
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
    }

    private static void runOnEach(java.util.concurrent.ExecutorService pool, java.util.List<DistributedLock> locks,
            java.util.function.Consumer<DistributedLock> action) throws Exception {
        java.util.List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
        for (DistributedLock lock : locks) {
            done.add(pool.submit(() -> action.accept(lock)));
        }
        for (java.util.concurrent.Future<?> f : done) {
            f.get(20, TimeUnit.SECONDS);
        }
    }

    /** The same for a leased permit: it is released by its id, which is its attempt's own. */
    @Test
    void aPermitLeasedForAnAttemptThatTimedOutComesBackOnceTheServerRunsAgain() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            PermitExpirableSemaphore permits = client.permitExpirableSemaphore(uniqueName("lost-lease"));
            assertThat(permits.trySetPermits(1)).isTrue();
            permits.release(permits.acquire()); // the scripts are in the server's cache
            long frozenAt = System.nanoTime();
            redis.freeze();
            try {
                assertThatThrownBy(() -> permits.tryAcquire(Duration.ofSeconds(2)))
                        .isInstanceOf(LockUnavailableException.class);
                TimeUnit.NANOSECONDS.sleep(Math.max(0, PAUSE.toNanos() - (System.nanoTime() - frozenAt)));
            } finally {
                redis.thaw();
            }
            long thawedAt = System.nanoTime();
            java.util.Optional<String> id = java.util.Optional.empty();
            while (id.isEmpty() && System.nanoTime() - thawedAt < TimeUnit.SECONDS.toNanos(15)) {
                id = permits.tryAcquire(Duration.ofMillis(100));
            }
            long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - thawedAt);
            System.out.printf("the permit was leased again %d ms after the server ran again%n", tookMillis);
            assertThat(id).as("leased again").isPresent();
            assertThat(tookMillis).as("ms from the server running again to the next lease").isLessThan(1_000);
            permits.release(id.get());
        }
    }

    /**
     * The recipe: a clean-up removes the hold of its own attempt only; a later attempt of the same owner (a thread's
     * next {@code lock()}, which takes the orphan over) makes a hold that the earlier attempt's clean-up leaves alone.
     */
    @Test
    void theCleanUpOfAnAttemptNeverRemovesALaterHoldOfTheSameOwner() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            RedisLockOps ops = client.redisLockOps();
            String name = uniqueName("attempt-ids");
            String owner = owner();
            AcquireRequest lost = request(name, owner, 10_000, Duration.ZERO);
            AcquireRequest later = request(name, owner, 10_000, Duration.ZERO);
            assertThat(lost.attemptId()).isNotEqualTo(later.attemptId());
            Grant orphan = ops.tryAcquire(lost, null).get(5, TimeUnit.SECONDS).grant();
            assertThat(redis.execute("HGET", name, "latchkey:attempt")).isEqualTo(lost.attemptId());
            Grant current = ops.tryAcquire(later, null).get(5, TimeUnit.SECONDS).grant();
            assertThat(current.fencingToken()).isGreaterThan(orphan.fencingToken());
            assertThat(ops.cleanUpAttempt(lost).get(5, TimeUnit.SECONDS)).as("the earlier attempt's clean-up")
                    .isFalse();
            assertThat(redis.execute("HGET", name, owner)).as("the later hold").isEqualTo("1");
            assertThat(ops.cleanUpAttempt(later).get(5, TimeUnit.SECONDS)).as("its own clean-up").isTrue();
            assertThat(redis.execute("EXISTS", name)).isEqualTo(0L);
            assertThat(ops.cleanUpAttempt(later).get(5, TimeUnit.SECONDS)).as("idempotent").isFalse();
        }
    }

    /** The same for a fair lock, whose hold is stored as {@code owner|token|attempt id}. */
    @Test
    void aFairLockCleanUpRemovesOnlyItsOwnAttemptsHold() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            checkCleanUpLeavesTheLaterHold(client.synchronizers().fairOps(), uniqueName("fair-attempt-ids"));
        }
    }

    /** The same for the write half of a read-write lock, whose hold is stored as {@code owner|token|attempt id}. */
    @Test
    void aWriteLockCleanUpRemovesOnlyItsOwnAttemptsHold() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            checkCleanUpLeavesTheLaterHold(client.synchronizers().writeOps(), uniqueName("rw-attempt-ids"));
        }
    }

    /**
     * The same for the read half, whose two attempts of one owner make two read holds: the earlier attempt's clean-up
     * removes its own hold only, the later one's its own, and nothing is left of either.
     */
    @Test
    void aReadLockCleanUpRemovesOnlyItsOwnAttemptsHold() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            RedisReadWriteLockOps ops = client.synchronizers().readOps();
            String name = uniqueName("read-attempt-ids");
            String owner = owner();
            AcquireRequest lost = request(name, owner, 10_000, Duration.ZERO);
            AcquireRequest later = request(name, owner, 10_000, Duration.ZERO);
            Grant orphan = ops.tryAcquire(lost, null).get(5, TimeUnit.SECONDS).grant();
            Grant current = ops.tryAcquire(later, null).get(5, TimeUnit.SECONDS).grant();
            RedisReadWriteLockOps.Keys keys = ops.keys(name);
            assertThat(redis.execute("HGET", keys.attempts, owner + "|" + orphan.fencingToken()))
                    .isEqualTo(lost.attemptId());
            assertThat(ops.cleanUpAttempt(lost).get(5, TimeUnit.SECONDS)).as("the earlier attempt's clean-up").isTrue();
            assertThat(ops.release(orphan).get(5, TimeUnit.SECONDS)).as("the orphan is gone").isFalse();
            assertThat(ops.renew(java.util.List.of(current)).get(5, TimeUnit.SECONDS)).as("the later hold renews")
                    .isEmpty();
            assertThat(ops.cleanUpAttempt(lost).get(5, TimeUnit.SECONDS)).as("idempotent").isFalse();
            assertThat(ops.cleanUpAttempt(later).get(5, TimeUnit.SECONDS)).as("its own clean-up").isTrue();
            assertThat(ops.isLocked(name).get(5, TimeUnit.SECONDS)).isFalse();
            assertThat(redis.execute("EXISTS", keys.readers, keys.attempts)).as("no key left").isEqualTo(0L);
        }
    }

    /**
     * Two attempts of one owner on {@code name}, the first one's answer taken as lost: its clean-up leaves the later
     * hold (which still renews), the later one's own clean-up removes it.
     */
    private static void checkCleanUpLeavesTheLaterHold(io.latchkey.core.RemoteLockOps ops, String name)
            throws Exception {
        String owner = owner();
        AcquireRequest lost = request(name, owner, 10_000, Duration.ZERO);
        AcquireRequest later = request(name, owner, 10_000, Duration.ZERO);
        Grant orphan = ops.tryAcquire(lost, null).get(5, TimeUnit.SECONDS).grant();
        Grant current = ops.tryAcquire(later, null).get(5, TimeUnit.SECONDS).grant();
        assertThat(current.fencingToken()).isGreaterThan(orphan.fencingToken());
        assertThat(ops.cleanUpAttempt(lost).get(5, TimeUnit.SECONDS)).as("the earlier attempt's clean-up")
                .isFalse();
        assertThat(ops.renew(java.util.List.of(current)).get(5, TimeUnit.SECONDS)).as("the later hold renews")
                .isEmpty();
        assertThat(ops.cleanUpAttempt(later).get(5, TimeUnit.SECONDS)).as("its own clean-up").isTrue();
        assertThat(ops.isLocked(name).get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(ops.release(current).get(5, TimeUnit.SECONDS)).as("gone").isFalse();
    }
}
