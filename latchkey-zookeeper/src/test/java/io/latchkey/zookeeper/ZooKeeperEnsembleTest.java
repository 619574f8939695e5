package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real 3-member ensemble in this JVM: exclusion and fencing across clients on different members, and the
 * leader stopped while locks are held and waited on.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperEnsembleTest {

    private static ZooKeeperEnsemble ensemble;

    @BeforeAll
    static void start() throws Exception {
        ensemble = new ZooKeeperEnsemble(3);
    }

    @AfterAll
    static void stop() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    private static LockClient client() {
        // long sessions: a leader election must not expire them
        return LockClient.connect(ensemble.uri(), ClientOptions.builder()
                .watchdogTimeout(Duration.ofSeconds(20))
                .operationTimeout(Duration.ofSeconds(15))
                .build());
    }

    @Test
    void mutualExclusionAndGrowingTokensAcrossClients() throws Exception {
        List<LockClient> clients = List.of(client(), client(), client());
        try {
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger maxInside = new AtomicInteger();
            long[] lastToken = {0};
            List<Thread> threads = new ArrayList<>();
            AtomicInteger violations = new AtomicInteger();
            for (LockClient c : clients) {
                for (int t = 0; t < 2; t++) {
                    Thread th = new Thread(() -> {
                        DistributedLock lock = c.lock("ensemble-counter");
                        for (int i = 0; i < 20; i++) {
                            lock.lock();
                            try {
                                maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                                long token = lock.fencingToken().orElseThrow();
                                synchronized (lastToken) {
                                    if (token <= lastToken[0]) {
                                        violations.incrementAndGet();
                                    }
                                    lastToken[0] = token;
                                }
                                inside.decrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                        }
                    }, "ensemble-worker");
                    threads.add(th);
                    th.start();
                }
            }
            for (Thread th : threads) {
                th.join();
            }
            assertThat(maxInside.get()).isEqualTo(1);
            assertThat(violations.get()).as("tokens strictly increase").isZero();
        } finally {
            clients.forEach(LockClient::close);
        }
    }

    @Test
    void leaderStoppedWhileHeldAndWaitedOn() throws Exception {
        try (LockClient holderClient = client(); LockClient waiterClient = client()) {
            DistributedLock held = holderClient.lock("ensemble-failover");
            held.lock();
            AtomicInteger inside = new AtomicInteger(1);
            AtomicInteger maxInside = new AtomicInteger(1);
            CountDownLatch waitersDone = new CountDownLatch(3);
            List<Thread> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                Thread t = new Thread(() -> {
                    DistributedLock lock = waiterClient.lock("ensemble-failover");
                    lock.lock();
                    try {
                        maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        inside.decrementAndGet();
                    } finally {
                        lock.unlock();
                        waitersDone.countDown();
                    }
                }, "failover-waiter-" + i);
                waiters.add(t);
                t.start();
            }
            Thread.sleep(300);
            int leader = ensemble.leader();
            assertThat(leader).as("a leader was elected").isGreaterThanOrEqualTo(0);
            ensemble.stop(leader);
            // the holder still holds across the election: its session survives on the remaining members
            Thread.sleep(1000);
            assertThat(waitersDone.getCount()).as("no waiter got in while the lock was held").isEqualTo(3);
            inside.decrementAndGet();
            held.unlock();
            assertThat(waitersDone.await(60, TimeUnit.SECONDS)).as("waiters proceed after the election").isTrue();
            assertThat(maxInside.get()).as("never two holders").isEqualTo(1);
            try (LockClient third = client()) {
                DistributedLock lock = third.lock("ensemble-failover");
                assertThat(lock.tryLock(10, TimeUnit.SECONDS)).isTrue();
                lock.unlock();
            }
        }
    }
}
