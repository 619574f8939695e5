package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedSemaphore;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redis specifics of the semaphore: asynchronous waiters woken across clients, close ends waits. */
class RedisSemaphoreTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient a;
    private RedisLockClient b;

    @BeforeEach
    void connect() {
        a = RedisLockClient.connect(redis.uri(), fastOptions());
        b = RedisLockClient.connect(redis.uri(), fastOptions());
    }

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void manyAsyncWaitersAreWokenByReleasesInAnotherClient() throws Exception {
        String name = uniqueName("sem-async");
        DistributedSemaphore waiting = a.semaphore(name);
        DistributedSemaphore releasing = b.semaphore(name);
        assertThat(releasing.trySetPermits(0)).isTrue();
        List<CompletableFuture<Boolean>> waits = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            waits.add(waiting.tryAcquireAsync(1, Duration.ofSeconds(20)));
        }
        Thread.sleep(300);
        assertThat(waits).noneMatch(CompletableFuture::isDone);
        releasing.release(30);
        long start = System.nanoTime();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5))
                .until(() -> waits.stream().filter(CompletableFuture::isDone).count() == 30);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3_000);
        releasing.release(20);
        CompletableFuture.allOf(waits.toArray(new CompletableFuture<?>[0])).get(5, TimeUnit.SECONDS);
        assertThat(waits).allMatch(CompletableFuture::join);
        assertThat(releasing.availablePermits()).isZero();
    }

    @Test
    void closingTheClientEndsAWaitingAcquire() throws Exception {
        String name = uniqueName("sem-close");
        DistributedSemaphore semaphore = a.semaphore(name);
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            try {
                semaphore.acquire();
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Thread.sleep(300);
        a.close();
        assertThat(outcome.get(5, TimeUnit.SECONDS)).as("the engine ends waits at close")
                .isInstanceOf(io.latchkey.LockUnavailableException.class).hasMessageContaining("client closed");
        assertThat(b.semaphore(name).availablePermits()).isZero();
    }

    @Test
    void keysOfANameShareTheNamespaceAndOneSlot() {
        String base = SyncKeys.base("ns:", "odd}name", "semaphore");
        assertThat(base).startsWith("ns:");
        assertThat(LockKeys.slot(base + ":permits")).isEqualTo(LockKeys.slot(base + ":other"));
    }
}
