package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockEventListener;
import io.latchkey.integration.MicrometerLockEventListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class LatchkeyMetricsTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class,
                    LatchkeyMetricsAutoConfiguration.class))
            .withPropertyValues("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri())
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    @Test
    void acquireHoldTimeoutAndLossAreRecordedWithoutTheNameByDefault() {
        runner.run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            LockClient client = context.getBean(LockClient.class);
            DistributedLock lock = client.lock("order:1");
            lock.lock();
            assertThat(otherThreadTryLock(lock)).isFalse();
            lock.unlock();

            assertThat(registry.get("latchkey.lock.acquire").tag("outcome", "acquired").timer().count())
                    .isEqualTo(1);
            assertThat(registry.get("latchkey.lock.acquire").tag("outcome", "timeout").timer().count())
                    .isEqualTo(1);
            assertThat(registry.get("latchkey.lock.held").timer().count()).isEqualTo(1);
            assertThat(registry.find("latchkey.lock.acquire").tagKeys("name").meters()).isEmpty();

            // a fixed lease that runs out while held is a loss
            lock.lock(Duration.ofMillis(100));
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> registry.get("latchkey.lock.lost").counter().count() >= 1);
        });
    }

    @Test
    void theNameTagIsOptIn() {
        runner.withPropertyValues("latchkey.metrics.name-tag=true").run(context -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            DistributedLock lock = context.getBean(LockClient.class).lock("nightly-report");
            lock.lock();
            lock.unlock();
            assertThat(registry.get("latchkey.lock.acquire").tags("outcome", "acquired", "name", "nightly-report")
                    .timer().count()).isEqualTo(1);
            assertThat(registry.get("latchkey.lock.held").tag("name", "nightly-report").timer().count())
                    .isEqualTo(1);
        });
    }

    @Test
    void noRegistryMeansNoListenerAndOtherListenersStillHearEvents() {
        List<String> heard = new CopyOnWriteArrayList<>();
        LockEventListener throwing = new LockEventListener() {
            @Override
            public void acquired(String lockName, Duration waited) {
                throw new IllegalStateException("listener bug");
            }
        };
        LockEventListener recording = new LockEventListener() {
            @Override
            public void acquired(String lockName, Duration waited) {
                heard.add(lockName);
            }

            @Override
            public LockEventListener forBackend(String backend) {
                heard.add("backend " + backend);
                return this;
            }

            @Override
            public AcquireWait waitStarted(String lockName) {
                heard.add("start " + lockName);
                return new AcquireWait() {
                    @Override
                    public void acquired(long fencingToken, Duration waited) {
                        heard.add("granted " + lockName);
                    }
                };
            }
        };
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class,
                        LatchkeyMetricsAutoConfiguration.class))
                .withPropertyValues("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri())
                .withBean("throwing", LockEventListener.class, () -> throwing)
                .withBean("recording", LockEventListener.class, () -> recording)
                .run(context -> {
                    assertThat(context).doesNotHaveBean(MicrometerLockEventListener.class);
                    DistributedLock lock = context.getBean(LockClient.class).lock("x");
                    lock.lock();
                    lock.unlock();
                    // the composite of both forwards every event, the acquire's own end included
                    await().atMost(Duration.ofSeconds(5)).until(() -> heard.size() == 4);
                    assertThat(heard).containsExactly("backend mem", "start x", "x", "granted x");
                });
    }

    @Test
    void metricsCanBeSwitchedOff() {
        runner.withPropertyValues("latchkey.metrics.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(MicrometerLockEventListener.class));
    }

    private static boolean otherThreadTryLock(DistributedLock lock) throws Exception {
        ExecutorService other = Executors.newSingleThreadExecutor(r -> new Thread(r, "metrics-test-other"));
        try {
            return other.submit(() -> lock.tryLock(50, TimeUnit.MILLISECONDS)).get(20, TimeUnit.SECONDS);
        } finally {
            other.shutdownNow();
        }
    }
}
