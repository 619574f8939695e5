package io.latchkey.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.quarkus.LockNotAcquiredException;
import io.latchkey.quarkus.LockedRun;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.QuarkusUnitTest;
import io.smallrye.health.SmallRyeHealth;
import io.smallrye.health.SmallRyeHealthReporter;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * One application in test mode with no {@code latchkey.uri} (so on {@code mem://latchkey}), with the scheduler, health
 * and Micrometer extensions: one boot for every in-process behaviour of the extension.
 */
class LatchkeyExtensionTest {

    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(OrderService.class, TickJob.class))
            .overrideConfigKey("quarkus.http.test-port", "0")
            // Maven's -D properties reach the test JVM as system properties (-Dlatchkey.test.jdk=...)
            .overrideConfigKey("smallrye.config.mapping.validate-unknown", "false")
            .setLogRecordPredicate(r -> r.getLoggerName().startsWith("io.latchkey.quarkus"))
            .assertLogRecords(records -> assertThat(records)
                    .filteredOn(r -> r.getMessage().contains("latchkey.uri is not set"))
                    .hasSize(1));

    @Inject
    OrderService orders;

    @Inject
    TickJob ticks;

    @Inject
    LockClient client;

    @Inject
    SmallRyeHealthReporter health;

    @Inject
    MeterRegistry meters;

    @Test
    void lockedExcludesAndRendersItsTemplate() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try (LockClient other = LockClient.connect("mem://latchkey")) {
            Future<?> holder = pool.submit(() -> {
                orders.hold("42", entered, release);
                return null;
            });
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            // the default client is mem://latchkey: another client of the same in-process server sees the hold
            assertThat(other.lock("order:42").isLocked()).isTrue();
            assertThatThrownBy(() -> orders.ship("42"))
                    .isInstanceOfSatisfying(LockNotAcquiredException.class, e -> {
                        assertThat(e.lockName()).isEqualTo("order:42");
                        assertThat(e.waitTime()).isEqualTo(Duration.ofMillis(100));
                    })
                    .hasMessageContaining("order:42");
            release.countDown();
            holder.get(10, TimeUnit.SECONDS);
            assertThat(other.lock("order:42").isLocked()).isFalse();

            // concurrent calls on one name never overlap
            Future<?> a = pool.submit(() -> count(10));
            Future<?> b = pool.submit(() -> count(10));
            a.get(20, TimeUnit.SECONDS);
            b.get(20, TimeUnit.SECONDS);
            assertThat(orders.mostInside()).isEqualTo(1);
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    private Void count(int times) throws InterruptedException {
        for (int i = 0; i < times; i++) {
            orders.count("c");
        }
        return null;
    }

    @Test
    void leaseIsReachableAndFencingTokensIncrease() {
        LockLease first = orders.ship("7");
        LockLease second = orders.ship("7");
        assertThat(first.lockName()).isEqualTo("order:7");
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(first.isValid()).isFalse(); // released when the method returned
        assertThat(LockedRun.currentLease()).isEmpty();
    }

    @Test
    void scheduledTickSkipsWhileAnotherInstanceHoldsItsLock() throws Exception {
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> ticks.runs() > 0);
        try (LockClient otherInstance = LockClient.connect("mem://latchkey")) {
            LockLease held = otherInstance.lock("tick").acquire();
            int before = ticks.runs();
            Thread.sleep(500); // about five ticks
            assertThat(ticks.runs()).isLessThanOrEqualTo(before + 1); // one may have been running already
            int during = ticks.runs();
            held.release();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> ticks.runs() > during);
            assertThat(ticks.lastToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void readinessAndMeters() {
        SmallRyeHealth readiness = health.getReadiness();
        assertThat(readiness.isDown()).isFalse();
        assertThat(readiness.getPayload().toString()).contains("\"latchkey\"").contains(client.clientId());

        orders.ship("metered");
        assertThat(meters.find("latchkey.lock.acquire").tag("outcome", "acquired").timer().count())
                .isPositive();
        assertThat(meters.find("latchkey.lock.held").timer().count()).isPositive();
    }
}
