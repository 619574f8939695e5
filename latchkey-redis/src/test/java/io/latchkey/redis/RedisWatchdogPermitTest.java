package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Permits acquired without a lease are renewed by the client's watchdog (1200 ms here, roomy enough for a loaded
 * machine's stalls) while the client lives, and return to the semaphore about one watchdog timeout after it stops
 * renewing them.
 */
class RedisWatchdogPermitTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private static io.latchkey.ClientOptions fastOptions() {
        return RedisTestSupport.fastOptions().toBuilder().watchdogTimeout(Duration.ofMillis(1_200)).build();
    }

    @Test
    void aWatchdogPermitOutlivesSeveralWatchdogTimeoutsAndExpiresAfterTheClientCloses() throws Exception {
        String name = uniqueName("permit-watchdog");
        try (RedisLockClient other = RedisLockClient.connect(redis.uri(), fastOptions())) {
            PermitExpirableSemaphore waiting = other.permitExpirableSemaphore(name);
            String id;
            try (RedisLockClient holder = RedisLockClient.connect(redis.uri(), fastOptions())) {
                PermitExpirableSemaphore s = holder.permitExpirableSemaphore(name);
                assertThat(s.trySetPermits(1)).isTrue();
                id = s.acquire();
                Thread.sleep(3_600); // three watchdog timeouts
                assertThat(waiting.availablePermits()).as("available while the holder lives").isZero();
                assertThat(waiting.tryAcquire(Duration.ofMillis(300), Duration.ofSeconds(5)))
                        .as("another client while the permit is renewed").isEmpty();
            } // closed without releasing: renewal stops, the permit runs out with its last lease
            long closedAt = System.nanoTime();
            Optional<String> taken = waiting.tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(5));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - closedAt);
            assertThat(taken).as("the permit of the closed client").isPresent();
            assertThat(ms).as("ms until it returned (watchdog timeout 1200 ms)").isLessThan(6_000);
            assertThat(waiting.release(id)).as("the dead client's id").isFalse();
            assertThat(waiting.release(taken.get())).isTrue();
        }
    }

    @Test
    void releaseByIdStopsTheRenewal() throws Exception {
        String name = uniqueName("permit-release");
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), fastOptions())) {
            PermitExpirableSemaphore s = client.permitExpirableSemaphore(name);
            s.trySetPermits(2);
            String a = s.acquire();
            Optional<String> b = s.tryAcquire(Duration.ofSeconds(1));
            assertThat(b).isPresent();
            assertThat(s.availablePermits()).isZero();
            assertThat(s.release(a)).isTrue();
            assertThat(s.availablePermits()).isEqualTo(1);
            Thread.sleep(2_500); // two watchdog timeouts
            assertThat(s.availablePermits()).as("the released permit stays free, the other renewed").isEqualTo(1);
            assertThat(s.tryAcquire(Duration.ofMillis(200))).as("the released permit").isPresent();
            assertThat(s.tryAcquire(Duration.ofMillis(200))).as("with no permit left: timeout").isEmpty();
        }
    }

    @Test
    void updateLeaseTurnsAWatchdogPermitIntoAFixedLease() throws Exception {
        String name = uniqueName("permit-update");
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), fastOptions())) {
            PermitExpirableSemaphore s = client.permitExpirableSemaphore(name);
            s.trySetPermits(1);
            String id = s.acquire();
            assertThat(s.updateLease(id, Duration.ofMillis(300))).isTrue();
            assertThat(s.tryAcquire(Duration.ofSeconds(5))).as("after the fixed lease ran out").isPresent();
            assertThat(s.release(id)).isFalse();
        }
    }

    @Test
    void badArgumentsAreRefused() {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), fastOptions())) {
            PermitExpirableSemaphore s = client.permitExpirableSemaphore(uniqueName("permit-args"));
            assertThatThrownBy(() -> s.tryAcquire(null)).isInstanceOf(NullPointerException.class);
            client.close();
            assertThatThrownBy(s::acquire).isInstanceOf(IllegalStateException.class);
        }
    }
}
