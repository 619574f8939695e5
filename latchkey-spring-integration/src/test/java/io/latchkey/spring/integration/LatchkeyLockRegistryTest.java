package io.latchkey.spring.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.integration.aggregator.AggregatingMessageHandler;
import org.springframework.integration.aggregator.DefaultAggregatingMessageGroupProcessor;
import org.springframework.integration.aggregator.MessageCountReleaseStrategy;
import org.springframework.integration.channel.QueueChannel;
import org.springframework.integration.config.EnableIntegration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.store.MessageGroupStore;
import org.springframework.integration.store.SimpleMessageStore;
import org.springframework.integration.support.MessageBuilder;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.messaging.Message;

/**
 * Spring Integration's own {@code LockRegistryLeaderInitiator} and aggregator on {@link LatchkeyLockRegistry}: two
 * application contexts ("nodes"), each with its own client, on one embedded ZooKeeper, sharing one message store.
 */
class LatchkeyLockRegistryTest {

    /** The aggregators' shared group store: what a JDBC or Redis message store is between real nodes. */
    static final MessageGroupStore STORE = new SimpleMessageStore();

    private static EmbeddedZooKeeper zooKeeper;
    private static AnnotationConfigApplicationContext nodeA;
    private static AnnotationConfigApplicationContext nodeB;

    @BeforeAll
    static void start() {
        zooKeeper = EmbeddedZooKeeper.start();
        nodeA = node();
        nodeB = node();
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

    private static AnnotationConfigApplicationContext node() {
        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("test",
                Map.of("zookeeper.uri", zooKeeper.uri())));
        context.register(App.class);
        context.refresh();
        return context;
    }

    @Test
    void exactlyOneNodeLeadsAndLeadershipMovesWhenItYields() {
        LockRegistryLeaderInitiator a = nodeA.getBean(LockRegistryLeaderInitiator.class);
        LockRegistryLeaderInitiator b = nodeB.getBean(LockRegistryLeaderInitiator.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> a.getContext().isLeader() || b.getContext().isLeader());
        assertThat(a.getContext().isLeader() && b.getContext().isLeader()).isFalse();
        LockRegistryLeaderInitiator leader = a.getContext().isLeader() ? a : b;
        LockRegistryLeaderInitiator other = leader == a ? b : a;
        leader.getContext().yield();
        await().atMost(Duration.ofSeconds(30)).until(() -> other.getContext().isLeader());
        assertThat(leader.getContext().isLeader()).isFalse();
    }

    @Test
    void twoAggregatorsOnOneStoreReleaseEveryGroupOnceAndWhole() throws Exception {
        AggregatingMessageHandler a = nodeA.getBean(AggregatingMessageHandler.class);
        AggregatingMessageHandler b = nodeB.getBean(AggregatingMessageHandler.class);
        int groups = 20;
        int size = 4;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<CompletableFuture<Void>> sends = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                for (int i = 0; i < size; i++) {
                    Message<String> message = MessageBuilder.withPayload("g" + g + "-" + i)
                            .setCorrelationId("order-" + g).build();
                    AggregatingMessageHandler handler = (i % 2 == 0) ? a : b;
                    sends.add(CompletableFuture.runAsync(() -> handler.handleMessage(message), pool));
                }
            }
            CompletableFuture.allOf(sends.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        List<Message<?>> released = new ArrayList<>();
        for (QueueChannel out : List.of(nodeA.getBean(QueueChannel.class), nodeB.getBean(QueueChannel.class))) {
            for (Message<?> m = out.receive(0); m != null; m = out.receive(0)) {
                released.add(m);
            }
        }
        assertThat(released).hasSize(groups);
        Set<Object> correlations = new HashSet<>();
        for (Message<?> m : released) {
            assertThat((List<?>) m.getPayload()).hasSize(size);
            correlations.add(m.getHeaders().get("correlationId"));
        }
        assertThat(correlations).hasSize(groups);
    }

    @Test
    void locksAreThreadOwnedReentrantAndTtlHoldsCannotBeRenewed() throws Exception {
        LatchkeyLockRegistry registryA = nodeA.getBean(LatchkeyLockRegistry.class);
        LatchkeyLockRegistry registryB = nodeB.getBean(LatchkeyLockRegistry.class);
        Lock lock = registryA.obtain("k");
        assertThat(registryA.obtain("k")).isSameAs(lock);
        lock.lock();
        lock.lock();
        try {
            assertThat(registryB.obtain("k").tryLock(100, TimeUnit.MILLISECONDS)).isFalse();
            registryA.renewLock("k"); // watchdog-renewed: fine
        } finally {
            lock.unlock();
            lock.unlock();
        }
        assertThatThrownBy(() -> registryA.renewLock("k")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not held");

        DistributedLock ttl = registryA.obtain("ttl");
        ttl.lock(Duration.ofMillis(500));
        assertThatThrownBy(() -> registryA.renewLock("ttl")).isInstanceOf(UnsupportedOperationException.class);
        // the fixed lease runs out on its own: the other node gets the lock
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            DistributedLock other = registryB.obtain("ttl");
            boolean got = other.tryLock();
            if (got) {
                other.unlock();
            }
            return got;
        });
        assertThatThrownBy(ttl::unlock).isInstanceOf(IllegalMonitorStateException.class);

        registryA.expireUnusedOlderThan(-1000);
        assertThat(registryA.obtain("k")).isNotSameAs(lock);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableIntegration
    static class App {
        @Bean(destroyMethod = "close")
        LockClient lockClient(org.springframework.core.env.Environment env) {
            return LockClient.connect(env.getProperty("zookeeper.uri"));
        }

        /** The one bean a Spring Integration application changes. */
        @Bean
        LatchkeyLockRegistry lockRegistry(LockClient client) {
            return new LatchkeyLockRegistry(client, "si:");
        }

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(LatchkeyLockRegistry registry) {
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry,
                    new DefaultCandidate(java.util.UUID.randomUUID().toString(), "cluster-leader"));
            initiator.setHeartBeatMillis(200);
            initiator.setBusyWaitMillis(100);
            return initiator;
        }

        @Bean
        QueueChannel out() {
            return new QueueChannel();
        }

        @Bean
        AggregatingMessageHandler aggregator(LatchkeyLockRegistry registry, QueueChannel out) {
            AggregatingMessageHandler handler = new AggregatingMessageHandler(
                    new DefaultAggregatingMessageGroupProcessor(), STORE);
            handler.setReleaseStrategy(new MessageCountReleaseStrategy(4));
            handler.setLockRegistry(registry);
            handler.setOutputChannel(out);
            handler.setExpireGroupsUponCompletion(true);
            return handler;
        }
    }
}
