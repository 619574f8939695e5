package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A semaphore attempt whose answer is lost after the server applied the take (the server answers only after the
 * client's operation timeout: paused clients) gives the permits back; a take whose answer arrives leaves no record.
 */
class RedisSemaphoreLostAnswerTest {

    // Per test: the server's clients are paused.
    @RegisterExtension
    RedisServerExtension redis = RedisServerExtension.standalone();

    private static final Duration OP_TIMEOUT = Duration.ofMillis(500);

    private static ClientOptions options() {
        return ClientOptions.builder().operationTimeout(OP_TIMEOUT).watchdogTimeout(Duration.ofSeconds(10)).build();
    }

    private static String takes(String name) {
        return SyncKeys.base("", name, "semaphore") + ":takes";
    }

    @Test
    void permitsTakenByAnAttemptWhoseAnswerWasLostComeBack() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            String name = uniqueName("sem-lost-answer");
            DistributedSemaphore semaphore = client.semaphore(name);
            assertThat(semaphore.trySetPermits(2)).isTrue();
            // the server runs the take after the client gave up on it
            redis.pauseClients(Duration.ofMillis(3 * OP_TIMEOUT.toMillis()));
            assertThatThrownBy(() -> semaphore.tryAcquire(2, Duration.ZERO))
                    .isInstanceOf(LockUnavailableException.class);
            Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
                    .until(() -> semaphore.availablePermits() == 2);
            assertThat(redis.execute("EXISTS", takes(name))).as("the take's record").isEqualTo(0L);
            assertThat(semaphore.tryAcquire(2, Duration.ZERO)).isTrue();
            semaphore.release(2);
        }
    }

    /** The release (or the next take) deletes the record of a take whose answer arrived: no extra round trip. */
    @Test
    void aTakeWhoseAnswerArrivedLeavesNoRecord() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), options())) {
            String name = uniqueName("sem-no-record");
            DistributedSemaphore semaphore = client.semaphore(name);
            assertThat(semaphore.trySetPermits(2)).isTrue();
            semaphore.acquire();
            assertThat(redis.execute("HLEN", takes(name))).as("the first take's record, until the next script")
                    .isEqualTo(1L);
            semaphore.acquire();
            assertThat(redis.execute("HLEN", takes(name))).as("the second take deleted the first's record")
                    .isEqualTo(1L);
            assertThat(semaphore.availablePermits()).isZero();
            semaphore.release(2);
            assertThat(redis.execute("EXISTS", takes(name))).as("the release deleted the last record").isEqualTo(0L);
            assertThat(semaphore.availablePermits()).isEqualTo(2);
        }
    }
}
