package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.DistributedLock;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The spin lock waits without pub/sub, backs off with jitter, and shares the plain lock's keys. */
class RedisSpinLockTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    /** Holds that ride out a loaded machine's renewal stalls: this class tests waiting, not leases. */
    private static io.latchkey.ClientOptions fastOptions() {
        return RedisTestSupport.fastOptions().toBuilder().watchdogTimeout(Duration.ofSeconds(5)).build();
    }

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
    void backoffsAreChecked() {
        assertThatThrownBy(() -> new RedisSpinLockOps(null, 0, 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialBackoff must be positive");
        assertThatThrownBy(() -> new RedisSpinLockOps(null, 10, 5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBackoff must be at least");
    }

    @Test
    void backoffIsConfigurablePerLock() throws Exception {
        try (RedisLockClient a = RedisLockClient.connect(redis.uri(), fastOptions());
             RedisLockClient b = RedisLockClient.connect(redis.uri(), fastOptions())) {
            String name = uniqueName("spin-backoff");
            DistributedLock held = a.spinLock(name, Duration.ofMillis(1), Duration.ofMillis(5));
            held.lock();
            DistributedLock quick = b.spinLock(name, Duration.ofMillis(1), Duration.ofMillis(5));
            DistributedLock same = b.spinLock(name, Duration.ofMillis(1), Duration.ofMillis(5));
            DistributedLock plain = b.spinLock(name);
            assertThat(quick.tryLock(100, TimeUnit.MILLISECONDS)).as("while held by a").isFalse();
            assertThat(plain.tryLock()).isFalse();
            CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    boolean got = quick.tryLock(10, TimeUnit.SECONDS);
                    if (got) {
                        assertThat(same.isHeldByCurrentThread()).as("same backoff, same lock").isTrue();
                        quick.unlock();
                    }
                    return got;
                } catch (InterruptedException e) {
                    return false;
                }
            });
            Thread.sleep(200);
            held.unlock();
            assertThat(waiting.get(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void badBackoffsAreRefusedWithTheReason() {
        try (RedisLockClient a = RedisLockClient.connect(redis.uri(), fastOptions())) {
            assertThatThrownBy(() -> a.spinLock("x", Duration.ZERO, Duration.ofMillis(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("initialBackoff must be positive but was PT0S");
            assertThatThrownBy(() -> a.spinLock("x", Duration.ofMillis(-1), Duration.ofMillis(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("initialBackoff must be positive");
            assertThatThrownBy(() -> a.spinLock("x", Duration.ofMillis(10), Duration.ofMillis(5)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("maxBackoff must be at least initialBackoff (PT0.01S) but was PT0.005S");
            assertThatThrownBy(() -> a.spinLock("x", Duration.ofMillis(10), Duration.ofDays(2)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("maxBackoff must be at most");
            assertThatThrownBy(() -> a.spinLock("x", null, Duration.ofMillis(5)))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("initialBackoff");
            assertThatThrownBy(() -> a.spinLock("x", Duration.ofMillis(1), null))
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("maxBackoff");
            assertThatThrownBy(() -> a.spinLock("", Duration.ofMillis(1), Duration.ofMillis(2)))
                    .isInstanceOf(IllegalArgumentException.class);
            for (int i = 1; i <= RedisSynchronizers.MAX_SPIN_BACKOFFS; i++) {
                a.spinLock("x", Duration.ofMillis(i), Duration.ofMillis(100));
            }
            a.spinLock("x", Duration.ofMillis(1), Duration.ofMillis(100)); // a pair it already has
            assertThatThrownBy(() -> a.spinLock("x", Duration.ofMillis(1), Duration.ofMillis(101)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 64 distinct");
            a.close();
            assertThatThrownBy(() -> a.spinLock("x", Duration.ofMillis(1), Duration.ofMillis(2)))
                    .isInstanceOf(IllegalStateException.class);
        }
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
