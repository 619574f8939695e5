package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/**
 * 200 threads of one JVM on one name (Curator's CURATOR-716: every thread queues its own node and throughput
 * collapses). Here the threads share one remote waiter, so the server sees at most a couple of nodes and every
 * thread gets through quickly.
 */
class ManyWaitersTest {

    @Test
    void twoHundredThreadsOnOneNameAllGetThroughWithAFewNodes() throws Exception {
        String name = "many-" + UUID.randomUUID();
        try (ZooKeeperLockClient client = ZooKeeperLockClient.connect(SharedZooKeeper.server().uri(),
                ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(5)).build());
             CuratorFramework observer = SharedZooKeeper.curator()) {
            DistributedLock lock = client.lock(name);
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger maxInside = new AtomicInteger();
            AtomicInteger maxNodes = new AtomicInteger();
            AtomicInteger done = new AtomicInteger();
            int threads = 200;
            int rounds = 5;
            List<Thread> workers = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                Thread w = new Thread(() -> {
                    for (int i = 0; i < rounds; i++) {
                        lock.lock();
                        try {
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            inside.decrementAndGet();
                        } finally {
                            lock.unlock();
                        }
                    }
                    done.incrementAndGet();
                }, "many-waiter-" + t);
                workers.add(w);
                w.start();
            }
            while (done.get() < threads && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(60)) {
                try {
                    maxNodes.accumulateAndGet(observer.getChildren().forPath(client.lockPath(name)).size(), Math::max);
                } catch (org.apache.zookeeper.KeeperException.NoNodeException e) {
                    // not created yet
                }
                Thread.sleep(20);
            }
            for (Thread w : workers) {
                w.join(TimeUnit.SECONDS.toMillis(10));
            }
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(done.get()).as("all threads finished within 60 s (took %d ms)", millis).isEqualTo(threads);
            assertThat(maxInside.get()).isEqualTo(1);
            assertThat(maxNodes.get()).as("one remote waiter per name: nodes on the server").isLessThanOrEqualTo(2);
        }
    }
}
