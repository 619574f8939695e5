package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The latch's waiters are woken by the message, well before their bounded re-check. */
class RedisCountDownLatchTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    @Test
    void waitersAreWokenByTheMessageNotTheRecheck() throws Exception {
        // Default-like watchdog: the re-check is 5 s / 3, far above the wake-up we expect.
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(30))
                .operationTimeout(Duration.ofSeconds(3)).build();
        try (RedisLockClient a = RedisLockClient.connect(redis.uri(), options);
             RedisLockClient b = RedisLockClient.connect(redis.uri(), options)) {
            String name = uniqueName("latch-wake");
            DistributedCountDownLatch latch = a.countDownLatch(name);
            assertThat(latch.trySetCount(1)).isTrue();
            CompletableFuture<Long> opened = CompletableFuture.supplyAsync(() -> {
                try {
                    return latch.await(Duration.ofSeconds(10)) ? System.nanoTime() : -1L;
                } catch (InterruptedException e) {
                    return -2L;
                }
            });
            Thread.sleep(300);
            long counted = System.nanoTime();
            b.countDownLatch(name).countDown();
            long at = opened.get(10, TimeUnit.SECONDS);
            assertThat(at).isPositive();
            assertThat(TimeUnit.NANOSECONDS.toMillis(at - counted)).isLessThan(1_000);
            assertThat(b.countDownLatch(name).getCount()).isZero();
        }
    }
}
