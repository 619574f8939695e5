package io.latchkey.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.quarkus.LockNotAcquiredException;
import io.latchkey.testing.RedisServerExtension;
import io.quarkus.test.QuarkusUnitTest;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The application on a real Redis ({@code latchkey.uri} set before it starts) and a second client outside Quarkus,
 * standing for another instance: each excludes the other.
 */
class RedisInstancesTest {

    @RegisterExtension
    @Order(1)
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    @RegisterExtension
    @Order(2)
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OrderService.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            // Maven's -D properties reach the test JVM as system properties (-Dlatchkey.test.jdk=...)
            .overrideConfigKey("smallrye.config.mapping.validate-unknown", "false")
            .overrideConfigKey("quarkus.scheduler.enabled", "false")
            .overrideConfigKey("latchkey.client-name", "orders-1")
            .setBeforeAllCustomizer(() -> System.setProperty("latchkey.uri", REDIS.uri()))
            .setAfterAllCustomizer(() -> System.clearProperty("latchkey.uri"));

    @Inject
    OrderService orders;

    @ConfigProperty(name = "latchkey.uri")
    String uri;

    @Test
    void theApplicationAndAnotherInstanceExcludeEachOther() throws Exception {
        assertThat(uri).startsWith("redis://");
        try (LockClient otherInstance = LockClient.connect(uri)) {
            LockLease held = otherInstance.lock("order:9").acquire();
            assertThatThrownBy(() -> orders.ship("9")).isInstanceOf(LockNotAcquiredException.class)
                    .hasMessageContaining("order:9");
            held.release();
            LockLease shipped = orders.ship("9");
            assertThat(shipped.fencingToken()).isGreaterThan(held.fencingToken());

            ExecutorService pool = Executors.newSingleThreadExecutor();
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            try {
                Future<?> holder = pool.submit(() -> {
                    orders.hold("9", entered, release);
                    return null;
                });
                assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(otherInstance.lock("order:9").tryAcquire(Duration.ofMillis(100))).isEmpty();
                assertThat(otherInstance.lock("order:9").holder()).as("latchkey.client-name names the holder")
                        .hasValueSatisfying(h -> assertThat(h.clientName()).isEqualTo("orders-1"));
                release.countDown();
                holder.get(10, TimeUnit.SECONDS);
                otherInstance.lock("order:9").tryAcquire(Duration.ofSeconds(5)).orElseThrow().release();
            } finally {
                release.countDown();
                pool.shutdownNow();
            }
        }
    }
}
