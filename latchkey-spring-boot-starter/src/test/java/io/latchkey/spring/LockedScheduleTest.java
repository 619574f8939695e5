package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.testing.RedisServer;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@link LockedSchedule} on real {@code @Scheduled} methods: two Spring Boot applications (two "nodes") on one
 * redis-server, started once for the class.
 */
class LockedScheduleTest {

    /** Every tick of the cron below (every two seconds), by the node that ran it. */
    static final Map<Long, List<String>> TICKS = new ConcurrentHashMap<>();
    static final AtomicInteger LONG_RUNS = new AtomicInteger();
    static final AtomicBoolean LONG_RUN_KEPT_ITS_LOCK = new AtomicBoolean();
    static final AtomicBoolean INTERRUPTED_ON_LOSS = new AtomicBoolean();
    static final AtomicBoolean FLAGGED_ON_LOSS = new AtomicBoolean();
    static final List<String> OBSERVED = new CopyOnWriteArrayList<>();

    private static RedisServer redis;
    private static ConfigurableApplicationContext nodeA;
    private static ConfigurableApplicationContext nodeB;

    @BeforeAll
    static void startTwoNodes() {
        redis = RedisServer.standalone().start();
        nodeA = node("a");
        nodeB = node("b");
    }

    @AfterAll
    static void stop() {
        if (nodeA != null) {
            nodeA.close();
        }
        if (nodeB != null) {
            nodeB.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    private static ConfigurableApplicationContext node(String id) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("latchkey.uri=" + redis.uri(), "latchkey.watchdog-timeout=2s", "node.id=" + id,
                        "spring.task.scheduling.pool.size=4")
                .run();
    }

    @Test
    void eachTickRunsOnExactlyOneNode() {
        await().atMost(Duration.ofSeconds(30)).until(() -> TICKS.size() >= 3);
        TICKS.forEach((second, nodes) -> assertThat(nodes).as("tick %d", second).hasSize(1));
    }

    @Test
    void theWatchdogKeepsALongRunsLockAndTheOtherNodeSkipsMeanwhile() {
        // a 3 s run with a 2 s watchdog lease (renewed every 667 ms), ticks every 500 ms on two nodes
        await().atMost(Duration.ofSeconds(30)).until(() -> LONG_RUNS.get() >= 1);
        assertThat(LONG_RUN_KEPT_ITS_LOCK).isTrue();
        assertThat(Jobs.LONG_OVERLAP.get()).isFalse();
    }

    @Test
    void aLostLockInterruptsTheRunWhenAskedAndIsFlaggedOtherwise() {
        // lockAtMostFor = 300ms, runs of up to 3 s: the lease runs out under them
        await().atMost(Duration.ofSeconds(30)).untilTrue(INTERRUPTED_ON_LOSS);
        await().atMost(Duration.ofSeconds(30)).untilTrue(FLAGGED_ON_LOSS);
    }

    @Test
    void acquireAndHoldAreObserved() {
        await().atMost(Duration.ofSeconds(30)).until(() -> OBSERVED.contains("latchkey.acquire:skipped")
                && OBSERVED.contains("latchkey.acquire:acquired") && OBSERVED.contains("latchkey.hold"));
        assertThat(nodeA.getBean(LockClient.class).lock("tick").isLocked()).isIn(true, false);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        Jobs jobs(org.springframework.core.env.Environment env) {
            return new Jobs(env.getProperty("node.id"));
        }

        @Bean
        ObservationRegistry observationRegistry() {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler<Observation.Context>() {
                @Override
                public void onStop(Observation.Context context) {
                    String outcome = context.getLowCardinalityKeyValue("outcome") == null ? ""
                            : ":" + context.getLowCardinalityKeyValue("outcome").getValue();
                    OBSERVED.add(context.getName() + outcome);
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return context.getName() != null && context.getName().startsWith("latchkey.");
                }
            });
            return registry;
        }
    }

    static class Jobs {
        static final AtomicBoolean LONG_RUNNING = new AtomicBoolean();
        static final AtomicBoolean LONG_OVERLAP = new AtomicBoolean();

        private final String node;

        Jobs(String node) {
            this.node = node;
        }

        /**
         * Both nodes fire every two seconds, aligned to the wall clock; lockAtLeastFor covers up to 1.5 s of
         * scheduler jitter between them on a loaded machine.
         */
        @Scheduled(cron = "*/2 * * * * *")
        @LockedSchedule(name = "tick", lockAtLeastFor = "1500ms")
        public void tick() {
            TICKS.computeIfAbsent(System.currentTimeMillis() / 2000, s -> new CopyOnWriteArrayList<>()).add(node);
        }

        @Scheduled(fixedRate = 500)
        @LockedSchedule(name = "long")
        public void longRun() throws InterruptedException {
            if (!LONG_RUNNING.compareAndSet(false, true)) {
                LONG_OVERLAP.set(true);
            }
            try {
                Thread.sleep(3000);
                if (LockedRun.isLockValid()) {
                    LONG_RUN_KEPT_ITS_LOCK.set(true);
                }
            } finally {
                LONG_RUNNING.set(false);
                LONG_RUNS.incrementAndGet();
            }
        }

        @Scheduled(fixedDelay = 200)
        @LockedSchedule(name = "interrupted", lockAtMostFor = "300ms", onLost = LockedSchedule.OnLost.INTERRUPT)
        public void interruptedWhenLost() {
            try {
                Thread.sleep(3000);
            } catch (InterruptedException e) {
                INTERRUPTED_ON_LOSS.set(true);
            }
        }

        @Scheduled(fixedDelay = 200)
        @LockedSchedule(name = "flagged", lockAtMostFor = "300ms")
        public void flaggedWhenLost() throws InterruptedException {
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (System.nanoTime() < deadline) {
                if (!LockedRun.isLockValid()) {
                    FLAGGED_ON_LOSS.set(true);
                    return;
                }
                Thread.sleep(20);
            }
        }
    }
}
