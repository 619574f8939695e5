package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.latchkey.testing.EtcdServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link EtcdLockClient#list} on a real etcd: holders, owners, tokens (also of queued grants), lease TTLs, waiters. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdInspectTest {

    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();

    private static LockClient open(String ns) {
        return LockClient.connect(etcd.uri(), ClientOptions.builder().namespace(ns)
                .watchdogTimeout(Duration.ofSeconds(6)).operationTimeout(Duration.ofSeconds(5)).build());
    }

    private static List<LockInfo> list(LockClient client, String pattern) {
        return ((LockInspector) client).list(pattern);
    }

    @Test
    void listsHoldersWithOwnerTokenLeaseAndWaiters() throws Exception {
        String ns = "inspect-" + UUID.randomUUID();
        try (LockClient a = open(ns); LockClient b = open(ns); LockClient observer = open(ns);
             LockClient elsewhere = open(ns + "-other")) {
            assertThat(a.capabilities()).contains(Capability.INSPECT);
            assertThat(list(observer, null)).isEmpty();
            LockLease one = a.lock("orders-1").acquire();
            LockLease fixed = a.lock("pay/ment %").acquire(Duration.ofSeconds(20));
            LockLease two = b.fairLock("orders-2").acquire();
            elsewhere.lock("orders-3").acquire();
            CompletableFuture<LockLease> queued = a.lock("orders-2").acquireAsync();
            await().atMost(Duration.ofSeconds(10)).until(() -> list(observer, "orders-2").get(0).waiters().getAsInt() == 1);

            List<LockInfo> all = list(observer, "*");
            assertThat(all).extracting(LockInfo::name).containsExactly("orders-1", "orders-2", "pay/ment %");
            LockInfo first = all.get(0);
            assertThat(first.owner()).startsWith(a.clientId() + ":").doesNotContain("\n");
            assertThat(first.fencingToken()).as("taken without waiting: the key's create revision")
                    .hasValue(one.fencingToken());
            assertThat(first.remainingLease()).as("the shared lease's TTL").isPresent();
            assertThat(first.remainingLease().get()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(6));
            assertThat(first.waiters()).hasValue(0);
            assertThat(all.get(1).owner()).startsWith(b.clientId() + ":");
            assertThat(all.get(1).fencingToken()).hasValue(two.fencingToken());
            LockInfo leased = all.get(2);
            assertThat(leased.fencingToken()).hasValue(fixed.fencingToken());
            assertThat(leased.remainingLease().get()).as("its own lease: 20 s")
                    .isGreaterThan(Duration.ofSeconds(10)).isLessThanOrEqualTo(Duration.ofSeconds(20));
            assertThat(list(observer, "orders-?")).extracting(LockInfo::name).containsExactly("orders-1", "orders-2");
            assertThat(list(elsewhere, null)).extracting(LockInfo::name).containsExactly("orders-3");

            two.release();
            LockLease next = queued.get(10, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).isGreaterThan(two.fencingToken());
            assertThat(list(a, "orders-2").get(0).fencingToken()).as("its own hold").hasValue(next.fencingToken());
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    list(observer, "orders-2").get(0).fencingToken()).as("written after a queued grant")
                    .hasValue(next.fencingToken()));
            assertThat(list(observer, "orders-2").get(0).owner()).startsWith(a.clientId() + ":")
                    .doesNotContain("token");

            one.release();
            fixed.release();
            next.release();
            assertThat(list(observer, null)).as("released locks are gone").isEmpty();
        }
    }

    @Test
    void aHandOffShowsTheHandOffsToken() throws Exception {
        String ns = "inspect-" + UUID.randomUUID();
        try (LockClient holder = open(ns); LockClient observer = open(ns)) {
            var lock = holder.lock("handed");
            lock.lock();
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
            }, "etcd-inspect-test-second");
            t.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> t.getState() == Thread.State.WAITING
                    || t.getState() == Thread.State.TIMED_WAITING);
            lock.unlock();
            long token = second.get(10, TimeUnit.SECONDS);
            assertThat(list(observer, null).get(0).fencingToken()).hasValue(token);
            done.complete(null);
            t.join(10_000);
        }
    }

    @Test
    void listsReadWriteLocksSemaphoresPermitsAndLatches() throws Exception {
        String ns = "inspect-" + UUID.randomUUID();
        try (LockClient a = open(ns); LockClient b = open(ns); LockClient observer = open(ns)) {
            LockLease readA = a.readWriteLock("catalog").readLock().acquire();
            LockLease readB = b.readWriteLock("catalog").readLock().acquire();
            CompletableFuture<LockLease> writer = a.readWriteLock("catalog").writeLock().acquireAsync();
            await().atMost(Duration.ofSeconds(10)).until(() -> list(observer, "catalog").get(0).waiters().getAsInt() == 1);
            LockLease write = b.readWriteLock("prices").writeLock().acquire();
            assertThat(a.semaphore("pool").trySetPermits(3)).isTrue();
            assertThat(a.semaphore("pool").tryAcquire(1, Duration.ZERO)).isTrue();
            assertThat(a.permitExpirableSemaphore("slots").trySetPermits(2)).isTrue();
            String permit = a.permitExpirableSemaphore("slots").acquire(Duration.ofSeconds(20));
            assertThat(b.permitExpirableSemaphore("idle").trySetPermits(1)).isTrue();
            assertThat(a.countDownLatch("start").trySetCount(3)).isTrue();
            a.countDownLatch("start").countDown();

            List<LockInfo> all = list(observer, null);
            assertThat(all).extracting(LockInfo::name, LockInfo::kind).containsExactly(
                    org.assertj.core.api.Assertions.tuple("catalog", "read-lock"),
                    org.assertj.core.api.Assertions.tuple("catalog", "read-lock"),
                    org.assertj.core.api.Assertions.tuple("prices", "write-lock"),
                    org.assertj.core.api.Assertions.tuple("idle", "permit-semaphore"),
                    org.assertj.core.api.Assertions.tuple("slots", "permit"),
                    org.assertj.core.api.Assertions.tuple("pool", "semaphore"),
                    org.assertj.core.api.Assertions.tuple("start", "latch"));
            assertThat(all.get(0).fencingToken()).hasValue(readA.fencingToken());
            assertThat(all.get(0).owner()).startsWith(a.clientId() + ":");
            assertThat(all.get(1).fencingToken()).hasValue(readB.fencingToken());
            assertThat(all.get(1).waiters()).as("the queued writer").hasValue(1);
            assertThat(all.get(2).owner()).startsWith(b.clientId() + ":");
            assertThat(all.get(2).fencingToken()).hasValue(write.fencingToken());
            assertThat(all.get(2).remainingLease()).isPresent();
            assertThat(all.get(3).owner()).isEqualTo(LockInfo.NO_OWNER);
            assertThat(all.get(3).detail()).isEqualTo("1 of 1 permits available");
            assertThat(all.get(4).owner()).isEqualTo(permit);
            assertThat(all.get(4).detail()).isEqualTo("1 of 2 permits available");
            assertThat(all.get(4).fencingToken()).isPresent();
            assertThat(all.get(4).remainingLease().get()).as("its own 20 s lease")
                    .isGreaterThan(Duration.ofSeconds(10)).isLessThanOrEqualTo(Duration.ofSeconds(20));
            assertThat(all.get(5).detail()).isEqualTo("2 permits available");
            assertThat(all.get(6).detail()).isEqualTo("count 2");
            assertThat(list(observer, "s*")).extracting(LockInfo::name).containsExactly("slots", "start");

            readA.release();
            readB.release();
            writer.get(10, TimeUnit.SECONDS).release();
            write.release();
            a.permitExpirableSemaphore("slots").release(permit);
            assertThat(list(observer, "catalog")).as("released read-write locks are gone").isEmpty();
            assertThat(list(observer, "slots")).extracting(LockInfo::kind).containsExactly("permit-semaphore");
        }
    }
}
