package io.latchkey.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * ShedLock's {@code @SchedulerLock} on real {@code @Scheduled} methods in two Spring contexts ("nodes"), each with
 * its own client on one embedded ZooKeeper: only the provider bean is Latchkey's.
 */
class SchedulerLockTest {

    static final Map<Long, List<String>> TICKS = new ConcurrentHashMap<>();

    private static EmbeddedZooKeeper zooKeeper;
    private static AnnotationConfigApplicationContext nodeA;
    private static AnnotationConfigApplicationContext nodeB;

    @BeforeAll
    static void start() {
        zooKeeper = EmbeddedZooKeeper.start();
        nodeA = node("a");
        nodeB = node("b");
    }

    @AfterAll
    static void stop() {
        nodeA.close();
        nodeB.close();
        zooKeeper.close();
    }

    private static AnnotationConfigApplicationContext node(String id) {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
                Map.of("node.id", id, "zookeeper.uri", zooKeeper.uri())));
        context.register(App.class);
        context.refresh();
        return context;
    }

    @Test
    void eachTickRunsOnExactlyOneNode() {
        await().atMost(Duration.ofSeconds(30)).until(() -> TICKS.size() >= 3);
        TICKS.forEach((second, nodes) -> assertThat(nodes).as("tick %d", second).hasSize(1));
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
    static class App {
        @Bean(destroyMethod = "close")
        LockClient lockClient(org.springframework.core.env.Environment env) {
            return LockClient.connect(env.getProperty("zookeeper.uri"));
        }

        /** The one line a ShedLock project changes. */
        @Bean
        LockProvider lockProvider(LockClient client) {
            return new LatchkeyLockProvider(client);
        }

        @Bean
        Job job(org.springframework.core.env.Environment env) {
            return new Job(env.getProperty("node.id"));
        }
    }

    static class Job {
        private final String node;

        Job(String node) {
            this.node = node;
        }

        @Scheduled(cron = "*/2 * * * * *")
        @SchedulerLock(name = "tick", lockAtLeastFor = "PT1.5S")
        public void tick() {
            TICKS.computeIfAbsent(System.currentTimeMillis() / 2000, s -> new CopyOnWriteArrayList<>()).add(node);
        }
    }
}
