package io.latchkey.spring.boot3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.spring.LatchkeyEndpoint;
import io.latchkey.spring.Locked;
import io.latchkey.spring.LockedRun;
import io.latchkey.spring.LockedSchedule;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.SpringVersion;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The starter on Spring Boot 3.5: two real {@code SpringApplication}s ("nodes") on one embedded ZooKeeper, with
 * Boot 3.5's own actuator, meter registry and scheduler.
 */
class Boot3ApplicationTest {

    static final Map<Long, List<String>> TICKS = new ConcurrentHashMap<>();
    static final List<String> OBSERVED = new CopyOnWriteArrayList<>();

    private static EmbeddedZooKeeper zooKeeper;
    private static ConfigurableApplicationContext nodeA;
    private static ConfigurableApplicationContext nodeB;

    @BeforeAll
    static void start() {
        zooKeeper = EmbeddedZooKeeper.start();
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
        zooKeeper.close();
    }

    private static ConfigurableApplicationContext node(String id) {
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties("latchkey.uri=" + zooKeeper.uri(), "node.id=" + id,
                        "management.endpoints.web.exposure.include=health,latchkey")
                .run();
    }

    @Test
    void runsOnBoot35WithSpringFramework62() {
        assertThat(SpringBootVersion.getVersion()).startsWith("3.5.");
        assertThat(SpringVersion.getVersion()).startsWith("6.2.");
    }

    @Test
    void lockedMeteredObservedWithEndpointAndHealth() {
        Shipping shipping = nodeA.getBean(Shipping.class);
        assertThat(shipping.ship(7)).isTrue();
        MeterRegistry registry = nodeA.getBean(MeterRegistry.class);
        assertThat(registry.get("latchkey.lock.held").timer().count()).isGreaterThanOrEqualTo(1);
        assertThat(OBSERVED).contains("latchkey.acquire:acquired", "latchkey.hold");
        assertThat(nodeA.getBean(LatchkeyEndpoint.class).locks(null)).containsEntry("clientId",
                nodeA.getBean(LockClient.class).clientId());
        assertThat(nodeA.getBean(Boot3LatchkeyHealthIndicator.class).health().getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void theFencingTokenIsAvailableInsideLockedMethodsAndGrowsAcrossNodes() {
        long first = nodeA.getBean(Shipping.class).fencingToken(9);
        long second = nodeB.getBean(Shipping.class).fencingToken(9);
        long third = nodeA.getBean(Shipping.class).fencingToken(9);
        assertThat(second).isGreaterThan(first);
        assertThat(third).isGreaterThan(second);
        assertThat(LockedRun.currentLease()).isEmpty();
    }

    @Test
    void eachScheduledTickRunsOnExactlyOneNode() {
        await().atMost(Duration.ofSeconds(30)).until(() -> TICKS.size() >= 3);
        TICKS.forEach((second, nodes) -> assertThat(nodes).as("tick %d", second).hasSize(1));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableScheduling
    static class App {
        @Bean
        Shipping shipping(LockClient client) {
            return new Shipping(client);
        }

        @Bean
        Job job(org.springframework.core.env.Environment env) {
            return new Job(env.getProperty("node.id"));
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

    static class Shipping {
        private final LockClient client;

        Shipping(LockClient client) {
            this.client = client;
        }

        @Locked(name = "'order:' + #orderId", waitTime = 5000)
        public boolean ship(long orderId) {
            return LockedRun.isLockValid() && LockedRun.currentLease().orElseThrow().lockName().equals("order:" + orderId);
        }

        /** The fencing token of the call's lease, as a store that refuses older tokens would get it. */
        @Locked(name = "'order:' + #orderId", waitTime = 5000)
        public long fencingToken(long orderId) {
            return LockedRun.currentLease().orElseThrow().fencingToken();
        }
    }

    static class Job {
        private final String node;

        Job(String node) {
            this.node = node;
        }

        @Scheduled(cron = "*/2 * * * * *")
        @LockedSchedule(name = "tick", lockAtLeastFor = "1500ms")
        public void tick() {
            TICKS.computeIfAbsent(System.currentTimeMillis() / 2000, s -> new CopyOnWriteArrayList<>()).add(node);
        }
    }
}
