package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** {@link ZooKeeperLockClient#list} on the shared embedded server: holders, queues, namespace, glob. */
class InspectTest {

    private static ClientOptions options(String namespace) {
        return ClientOptions.builder().namespace(namespace).watchdogTimeout(Duration.ofSeconds(3)).build();
    }

    private static List<LockInfo> list(LockClient client, String pattern) {
        return ((LockInspector) client).list(pattern);
    }

    @Test
    void listsHoldersWithOwnerWaitersAndTokensWhereKnown() throws Exception {
        String ns = "inspect-" + UUID.randomUUID();
        String uri = SharedZooKeeper.server().uri();
        try (LockClient a = LockClient.connect(uri, options(ns));
             LockClient b = LockClient.connect(uri, options(ns));
             LockClient waiter = LockClient.connect(uri, options(ns));
             LockClient elsewhere = LockClient.connect(uri, options(ns + "-other"))) {
            assertThat(a.capabilities()).contains(Capability.INSPECT);
            assertThat(list(a, null)).isEmpty();
            LockLease one = a.lock("orders-1").acquire();
            LockLease two = b.fairLock("orders-2").acquire();
            LockLease pay = a.lock("pay/ment %").acquire();
            elsewhere.lock("orders-3").acquire();
            CompletableFuture<LockLease> queued = waiter.lock("orders-2").acquireAsync();
            await(() -> list(a, "orders-2").get(0).waiters().getAsInt() == 1);

            List<LockInfo> all = list(a, "*");
            assertThat(all).extracting(LockInfo::name).containsExactly("orders-1", "orders-2", "pay/ment %");
            LockInfo first = all.get(0);
            assertThat(first.owner()).isNotBlank().doesNotStartWith("session");
            assertThat(first.holdCount()).isEqualTo(1);
            assertThat(first.fencingToken()).as("held by this client: its grant's token").hasValue(one.fencingToken());
            assertThat(first.remainingLease()).as("the holder's session timeout").isPresent();
            assertThat(first.remainingLease().get()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(60));
            assertThat(first.detail()).isEqualTo("lease: session timeout");
            assertThat(first.waiters()).hasValue(0);
            LockInfo second = all.get(1);
            assertThat(second.owner()).isNotEqualTo(first.owner());
            assertThat(second.waiters()).hasValue(1);
            assertThat(list(b, "orders-2").get(0).fencingToken()).hasValue(two.fencingToken());
            assertThat(list(b, "orders-2").get(0).owner()).isEqualTo(second.owner());

            assertThat(list(a, "orders-?")).extracting(LockInfo::name).containsExactly("orders-1", "orders-2");
            assertThat(list(a, "pay/*")).extracting(LockInfo::name).containsExactly("pay/ment %");
            assertThat(list(a, "orders-3")).as("another namespace").isEmpty();
            assertThat(list(elsewhere, null)).extracting(LockInfo::name).containsExactly("orders-3");

            two.release();
            LockLease next = queued.get(10, TimeUnit.SECONDS);
            LockInfo handedOver = list(a, "orders-2").get(0);
            assertThat(handedOver.owner()).isNotEqualTo(second.owner());
            assertThat(handedOver.waiters()).hasValue(0);
            assertThat(list(waiter, "orders-2").get(0).fencingToken()).hasValue(next.fencingToken());

            one.release();
            pay.release();
            next.release();
            assertThat(list(a, null)).as("released locks are gone").isEmpty();
        }
    }

    @Test
    void locksGoWithTheirLeaseOrSession() throws Exception {
        String ns = "inspect-" + UUID.randomUUID();
        String uri = SharedZooKeeper.server().uri();
        try (LockClient observer = LockClient.connect(uri, options(ns))) {
            LockClient holder = LockClient.connect(uri, options(ns));
            holder.lock("session-held").acquire();
            holder.lock("leased").acquire(Duration.ofSeconds(2)); // long enough to be listed on a loaded machine
            assertThat(list(observer, null)).extracting(LockInfo::name).containsExactly("leased", "session-held");
            await(() -> list(observer, "leased").isEmpty());
            holder.close();
            await(() -> list(observer, null).isEmpty());
        }
    }

    @Test
    void aTokenShownToAnotherClientIsTheHoldersOwn() throws Exception {
        String ns = "inspect-" + UUID.randomUUID();
        String uri = SharedZooKeeper.server().uri();
        try (LockClient holder = LockClient.connect(uri, options(ns));
             LockClient observer = LockClient.connect(uri, options(ns))) {
            var lock = holder.lock("handed");
            lock.lock();
            assertThat(list(observer, null).get(0).fencingToken()).as("taken without waiting: its czxid")
                    .hasValue(lock.fencingToken().getAsLong());
            CompletableFuture<Long> second = new CompletableFuture<>();
            CompletableFuture<Void> done = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                lock.lock();
                try {
                    second.complete(lock.fencingToken().getAsLong());
                    done.join();
                } finally {
                    lock.unlock();
                }
            }, "inspect-test-second");
            t.start();
            await(() -> t.getState() == Thread.State.WAITING || t.getState() == Thread.State.TIMED_WAITING);
            lock.unlock(); // a waiting thread of the same client: the engine hands the node over
            long token = second.get(10, TimeUnit.SECONDS);
            LockInfo info = list(observer, null).get(0);
            assertThat(info.fencingToken()).as("a hand-off's token is its write's mzxid").hasValue(token);
            done.complete(null);
            t.join(10_000);
        }
    }

    @Test
    void anotherClientSeesTheTokenOfAQueuedGrant() throws Exception {
        String ns = "inspect-" + UUID.randomUUID();
        String uri = SharedZooKeeper.server().uri();
        try (LockClient first = LockClient.connect(uri, options(ns));
             LockClient second = LockClient.connect(uri, options(ns));
             LockClient observer = LockClient.connect(uri, options(ns))) {
            LockLease held = first.lock("queued").acquire();
            assertThat(list(observer, null).get(0).fencingToken()).hasValue(held.fencingToken());
            CompletableFuture<LockLease> queued = second.lock("queued").acquireAsync();
            await(() -> list(observer, "queued").get(0).waiters().getAsInt() == 1);
            held.release();
            LockLease next = queued.get(10, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            // the holder writes its token right after the grant, without waiting for it
            await(() -> list(observer, null).get(0).fencingToken().orElse(-1) == next.fencingToken());
            assertThat(list(observer, null).get(0).owner()).doesNotContain("\n").doesNotContain("token=");
            next.release();
        }
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("condition within 10 s").isLessThan(deadline);
            Thread.sleep(20);
        }
    }
}
