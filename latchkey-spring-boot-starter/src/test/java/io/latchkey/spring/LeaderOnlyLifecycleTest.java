package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** {@link LeaderOnlyLifecycle}: the component runs on exactly one instance, and moves when the leader stops. */
class LeaderOnlyLifecycleTest {

    static final String STORE = "mem://leader-only-" + UUID.randomUUID();
    static final ClientOptions OPTIONS = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(1)).build();

    /** A plain bean, not a Spring {@code Lifecycle}: only the election starts and stops it. */
    static final class Component {
        final AtomicBoolean running = new AtomicBoolean();
        final AtomicInteger starts = new AtomicInteger();

        public void start() {
            running.set(true);
            starts.incrementAndGet();
        }

        public void stop() {
            running.set(false);
        }

        public boolean isRunning() {
            return running.get();
        }
    }

    @Configuration
    static class App {
        @Bean(destroyMethod = "close")
        LockClient lockClient() {
            return LockClient.connect(STORE, OPTIONS);
        }

        @Bean
        Component component() {
            return new Component();
        }

        @Bean
        LeaderOnlyLifecycle leaderOnly(LockClient client, Component component) {
            return new LeaderOnlyLifecycle(client, "jobs", component::start, component::stop);
        }
    }

    @Test
    void theComponentRunsOnTheLeaderOnlyAndMovesWhenItsContextStops() {
        try (AnnotationConfigApplicationContext first = new AnnotationConfigApplicationContext(App.class)) {
            Component a = first.getBean(Component.class);
            await().atMost(Duration.ofSeconds(5)).until(a::isRunning);
            LeaderOnlyLifecycle leaderA = first.getBean(LeaderOnlyLifecycle.class);
            await().atMost(Duration.ofSeconds(5)).until(leaderA::isLeader);
            long termA = leaderA.currentLeadership().orElseThrow().term();

            AnnotationConfigApplicationContext second = new AnnotationConfigApplicationContext(App.class);
            try {
                Component b = second.getBean(Component.class);
                LeaderOnlyLifecycle leaderB = second.getBean(LeaderOnlyLifecycle.class);
                assertThat(leaderB.isRunning()).as("campaigning").isTrue();
                assertThat(b.isRunning()).as("not the leader").isFalse();

                first.stop();
                assertThat(a.isRunning()).as("stopped with its context").isFalse();
                await().atMost(Duration.ofSeconds(5)).until(b::isRunning);
                await().atMost(Duration.ofSeconds(5)).until(leaderB::isLeader);
                assertThat(leaderB.currentLeadership().orElseThrow().term()).isGreaterThan(termA);
                assertThat(b.starts.get()).isEqualTo(1);
            } finally {
                second.close();
            }
        }
    }
}
