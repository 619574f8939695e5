package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A waiter gets a crashed holder's permit when its lease runs out on the server, not at its re-check. */
class RedisPermitExpirableSemaphoreTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    @Test
    void aWaiterGetsAnExpiredPermitAtItsServerSideExpiry() throws Exception {
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(30))
                .operationTimeout(Duration.ofSeconds(3)).build();
        String name = uniqueName("permits");
        try (RedisLockClient waiter = RedisLockClient.connect(redis.uri(), options)) {
            try (RedisLockClient crashed = RedisLockClient.connect(redis.uri(), options)) {
                PermitExpirableSemaphore s = crashed.permitExpirableSemaphore(name);
                assertThat(s.trySetPermits(1)).isTrue();
                s.acquire(Duration.ofMillis(400));
            } // closed without releasing: the permit returns at its lease
            long start = System.nanoTime();
            Optional<String> id = waiter.permitExpirableSemaphore(name)
                    .tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5));
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertThat(id).isPresent();
            assertThat(ms).as("ms until the expired permit was taken (re-check is 1667 ms)").isLessThan(1_200);
            assertThat(waiter.permitExpirableSemaphore(name).availablePermits()).isZero();
            assertThat(waiter.permitExpirableSemaphore(name).release(id.get())).isTrue();
        }
    }
}
