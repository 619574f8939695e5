package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.request;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.core.RemoteLockOps.Attempt;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A fair lock's queue entry and a waiting writer's intent whose withdrawal is lost to a brief outage (the server
 * stopped and started again, its data kept) are withdrawn once the server is back, before their heartbeat runs out on
 * the server.
 */
class RedisWithdrawalRetryTest {

    // Per test: the server is stopped and started.
    @RegisterExtension
    RedisServerExtension redis = RedisServerExtension.builder().appendOnly().build();

    private static final Duration OP_TIMEOUT = Duration.ofSeconds(1);

    /** Heartbeat 5 s (the longest), a short operation timeout so that the lost withdrawal fails quickly. */
    private static ClientOptions options() {
        return ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(10))
                .operationTimeout(OP_TIMEOUT).build();
    }

    @Test
    void aFairQueueEntryWhoseWithdrawalWasLostLeavesTheQueueWhenTheServerIsBack() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            RedisFairLockOps ops = client.synchronizers().fairOps();
            String name = uniqueName("fair-withdraw");
            RedisFairLockOps.Keys keys = ops.keys(name);
            assertThat(attempt(ops, request(name, owner(), 60_000, Duration.ZERO)).isGranted()).isTrue();
            String waiter = owner();
            AcquireRequest waiting = request(name, waiter, 60_000, Duration.ofMinutes(1));
            assertThat(attempt(ops, waiting).entry()).isEqualTo(waiter);
            withdrawnWhenBack(ops, waiting, keys.queue, keys.timeouts, waiter, keys.owner);
        }
    }

    @Test
    void aWriterIntentWhoseWithdrawalWasLostIsWithdrawnWhenTheServerIsBack() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            RedisReadWriteLockOps read = client.synchronizers().readOps();
            RedisReadWriteLockOps write = client.synchronizers().writeOps();
            String name = uniqueName("intent-withdraw");
            RedisReadWriteLockOps.Keys keys = write.keys(name);
            assertThat(attempt(read, request(name, owner(), 60_000, Duration.ZERO)).isGranted()).isTrue();
            String writer = owner();
            AcquireRequest waiting = request(name, writer, 60_000, Duration.ofMinutes(1));
            assertThat(attempt(write, waiting).entry()).isEqualTo(writer);
            withdrawnWhenBack(write, waiting, keys.writers, keys.writers, writer, keys.readers);
        }
    }

    @Test
    void aNewAttemptOfTheSameOwnerStopsTheRetriesSoThatItsNewPlaceStays() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            RedisFairLockOps ops = client.synchronizers().fairOps();
            String name = uniqueName("fair-requeue");
            RedisFairLockOps.Keys keys = ops.keys(name);
            assertThat(attempt(ops, request(name, owner(), 60_000, Duration.ZERO)).isGranted()).isTrue();
            String waiter = owner();
            AcquireRequest waiting = request(name, waiter, 60_000, Duration.ofMinutes(1));
            assertThat(attempt(ops, waiting).entry()).isEqualTo(waiter);
            redis.stop();
            assertThatThrownBy(() -> ops.withdraw(waiting, waiter).get(5, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(LockUnavailableException.class);
            assertThat(ops.withdrawals().pending()).isEqualTo(1);
            // the same owner asks again (a thread that gave up and locks again): the old withdrawal stops
            ops.tryAcquire(request(name, waiter, 60_000, Duration.ofMinutes(1)), null)
                    .handle((a, e) -> null).get(5, TimeUnit.SECONDS);
            assertThat(ops.withdrawals().pending()).isZero();
            // a retry sent before the new attempt fails meanwhile (the server is down) and is not tried again
            Thread.sleep(OP_TIMEOUT.toMillis() + 2 * Withdrawals.MAX_RETRY_MILLIS);
            redis.start();
            Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> waiter.equals(
                    attempt(ops, request(name, waiter, 60_000, Duration.ofMinutes(1))).entry()));
            Thread.sleep(3 * Withdrawals.MAX_RETRY_MILLIS);
            assertThat(redis.execute("ZSCORE", keys.queue, waiter)).as("the new place stays").isNotNull();
        }
    }

    /**
     * Stops the server, withdraws {@code owner} (which fails), starts the server again and expects {@code owner} gone
     * from {@code set} while the server's clock is still before its heartbeat expiry (its score in {@code expiries}).
     * {@code held}, the hold's key, proves that the server kept its data.
     */
    private void withdrawnWhenBack(RemoteLockOps ops, AcquireRequest waiting, String set, String expiries,
                                   String owner, String held) throws Exception {
        long expiresAt = Long.parseLong((String) redis.execute("ZSCORE", expiries, owner));
        redis.stop();
        assertThatThrownBy(() -> ops.withdraw(waiting, owner).get(5, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LockUnavailableException.class);
        redis.start();
        assertThat(redis.execute("EXISTS", held)).as("the server kept its data").isEqualTo(1L);
        Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> redis.execute("ZSCORE", set, owner) == null);
        assertThat(serverMillis()).as("withdrawn before its heartbeat ran out on the server").isLessThan(expiresAt);
    }

    private long serverMillis() {
        List<?> time = (List<?>) redis.execute("TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1000 + Long.parseLong(String.valueOf(time.get(1))) / 1000;
    }

    private static Attempt attempt(RemoteLockOps ops, AcquireRequest request) throws Exception {
        return ops.tryAcquire(request, null).get(5, TimeUnit.SECONDS);
    }
}
