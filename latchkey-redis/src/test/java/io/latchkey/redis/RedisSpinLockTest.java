package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.DistributedLock;
import io.latchkey.testing.RedisServerExtension;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The spin lock waits without pub/sub, backs off with jitter, and shares the plain lock's keys. */
class RedisSpinLockTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    @Test
    void waitsWithoutSubscribingAndExcludesThePlainLock() throws Exception {
        try (RedisLockClient a = RedisLockClient.connect(redis.uri(), fastOptions());
             RedisLockClient b = RedisLockClient.connect(redis.uri(), fastOptions())) {
            String name = uniqueName("spin");
            DistributedLock plain = a.lock(name);
            plain.lock();
            DistributedLock spin = b.spinLock(name);
            assertThat(spin.tryLock()).as("a spin lock while the plain lock of the name is held").isFalse();
            CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    boolean got = spin.tryLock(5, TimeUnit.SECONDS);
                    if (got) {
                        spin.unlock();
                    }
                    return got;
                } catch (InterruptedException e) {
                    return false;
                }
            });
            Thread.sleep(400);
            assertThat(b.subscriptions().size()).as("channels subscribed by a spinning waiter").isZero();
            plain.unlock();
            assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void backoffGrowsExponentiallyWithJitterUpToTheMaximum() {
        RedisSpinLockOps ops = new RedisSpinLockOps(null, null, TimeUnit.MILLISECONDS.toNanos(10),
                TimeUnit.MILLISECONDS.toNanos(500));
        for (int n = 0; n < 100; n++) {
            long d = Math.min(500, 10L << Math.min(n, 40));
            long ms = TimeUnit.NANOSECONDS.toMillis(ops.backoffNanos(n));
            assertThat(ms).as("backoff %d", n).isBetween(d / 2 - 1, d);
        }
        assertThatThrownBy(() -> new RedisSpinLockOps(null, null, 0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialBackoff must be positive");
        assertThatThrownBy(() -> new RedisSpinLockOps(null, null, 10, 5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBackoff must be at least");
    }

    @Test
    void spinLockNamesAreChecked() {
        try (RedisLockClient a = RedisLockClient.connect(redis.uri(), fastOptions())) {
            assertThatThrownBy(() -> a.spinLock("")).isInstanceOf(IllegalArgumentException.class);
            a.close();
            assertThatThrownBy(() -> a.spinLock("x")).isInstanceOf(IllegalStateException.class);
        }
    }
}
