package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.spi.LockInfo;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code latchkey inspect} on Redis lists every synchronizer's layout with its kind, on a real server. */
class RedisSyncInspectTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private static ClientOptions options(String namespace) {
        return RedisTestSupport.fastOptions().toBuilder().watchdogTimeout(Duration.ofSeconds(30))
                .namespace(namespace).build();
    }

    @Test
    void listsEverySynchronizerWithItsKindOwnerAndState() throws Exception {
        try (RedisLockClient a = RedisLockClient.connect(redis.uri(), options("app:"));
             RedisLockClient b = RedisLockClient.connect(redis.uri(), options("app:"));
             RedisLockClient other = RedisLockClient.connect(redis.uri(), options("other:"))) {
            DistributedLock plain = a.lock("plain");
            plain.lock();
            DistributedLock fair = a.fairLock("fair");
            fair.lock();
            CompletableFuture<Boolean> fairWaiter = CompletableFuture.supplyAsync(() -> {
                try {
                    return b.fairLock("fair").tryLock(20, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    return false;
                }
            });
            DistributedReadWriteLock written = a.readWriteLock("rw-written");
            written.writeLock().lock(Duration.ofSeconds(20));
            written.readLock().lock(); // downgrade: a write and a read row
            DistributedLock readA = a.readWriteLock("rw-read").readLock();
            readA.lock();
            DistributedLock readB = b.readWriteLock("rw-read").readLock();
            readB.lock();
            DistributedLock oddFair = a.fairLock("odd}name");
            oddFair.lock();
            DistributedLock taggedWrite = a.readWriteLock("tag{x}y").writeLock();
            taggedWrite.lock();
            a.semaphore("sem").trySetPermits(3);
            a.semaphore("sem").acquire(1);
            PermitExpirableSemaphore permits = a.permitExpirableSemaphore("permits");
            permits.trySetPermits(2);
            String permit = permits.acquire(Duration.ofSeconds(20));
            a.countDownLatch("latch").trySetCount(2);
            other.fairLock("fair").lock(); // another namespace: never listed
            other.semaphore("sem").trySetPermits(1);
            RedisFairLockOps.Keys fairKeys = new RedisFairLockOps.Keys("app:", "fair", false);
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
                    ((Number) redis.execute("ZCARD", fairKeys.queue)).longValue() == 1);

            List<LockInfo> all = a.list("*");
            assertThat(all).extracting(LockInfo::name, LockInfo::kind).containsExactly(
                    tuple("fair", "fair-lock"),
                    tuple("latch", "latch"),
                    tuple("odd}name", "fair-lock"),
                    tuple("permits", "permit"),
                    tuple("plain", "lock"),
                    tuple("rw-read", "read-lock"),
                    tuple("rw-read", "read-lock"),
                    tuple("rw-written", "read-lock"),
                    tuple("rw-written", "write-lock"),
                    tuple("sem", "semaphore"),
                    tuple("tag{x}y", "write-lock"));
            LockInfo fairRow = all.get(0);
            assertThat(fairRow.owner()).startsWith(a.clientId() + ":");
            assertThat(fairRow.fencingToken()).isEqualTo(fair.fencingToken());
            assertThat(fairRow.waiters()).hasValue(1);
            assertThat(fairRow.remainingLease()).isPresent();
            assertThat(all.get(1).owner()).isEqualTo(LockInfo.NO_OWNER);
            assertThat(all.get(1).detail()).isEqualTo("count 2");
            assertThat(all.get(3).owner()).isEqualTo(permit);
            assertThat(all.get(3).detail()).isEqualTo("1 of 2 permits available");
            assertThat(all.get(3).remainingLease().orElseThrow()).isBetween(Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            assertThat(all.subList(5, 7)).extracting(LockInfo::owner).allMatch(o -> o.startsWith(a.clientId())
                    || o.startsWith(b.clientId())).doesNotHaveDuplicates();
            assertThat(all.get(7).fencingToken()).isEqualTo(written.readLock().fencingToken());
            assertThat(all.get(8).fencingToken()).isEqualTo(written.writeLock().fencingToken());
            assertThat(all.get(8).remainingLease().orElseThrow()).isBetween(Duration.ofSeconds(10),
                    Duration.ofSeconds(20));
            assertThat(all.get(9).detail()).isEqualTo("2 permits available");

            assertThat(a.list("rw-*")).extracting(LockInfo::name)
                    .containsExactly("rw-read", "rw-read", "rw-written", "rw-written");
            assertThat(a.list("odd*")).extracting(LockInfo::name).containsExactly("odd}name");
            assertThat(other.list("*")).extracting(LockInfo::name, LockInfo::kind)
                    .containsExactly(tuple("fair", "fair-lock"), tuple("sem", "semaphore"));

            fair.unlock();
            assertThat(fairWaiter.get(10, TimeUnit.SECONDS)).isTrue();
            readA.unlock();
            readB.unlock();
            written.readLock().unlock();
            written.writeLock().unlock();
            assertThat(a.list("rw-*")).isEmpty();
            oddFair.unlock();
            taggedWrite.unlock();
            plain.unlock();
            permits.release(permit);
        }
    }

    @Test
    void recognizesOnlyKeysThatMapBackToANameOfItsNamespace() {
        RedisInspector inspector = new RedisInspector("ns:", null, null, null);
        for (String name : new String[] {"plain", "with{tag}", "close}only", "a{b", "x:latchkey:rw:write"}) {
            String base = SyncKeys.base("ns:", name, "rw");
            RedisInspector.Found found = inspector.recognize(base + ":write");
            assertThat(found).as(name).isNotNull();
            assertThat(found.name()).isEqualTo(name);
            assertThat(found.kind()).isEqualTo("rw");
            assertThat(inspector.recognize(base + ":fence")).as("not an anchor part").isNull();
        }
        assertThat(inspector.recognize(SyncKeys.base("other:", "plain", "rw") + ":write")).isNull();
        assertThat(inspector.recognize("ns:plain")).isNull();
        assertThat(inspector.recognize("ns:{ns:plain}:latchkey:fence")).as("a plain lock's counter").isNull();
        assertThat(inspector.recognize("ns:{123}:latchkey:tokens")).as("a cluster slot's token key").isNull();
        assertThat(inspector.recognize("ns:latchkey:tokens")).as("the namespace's token key").isNull();
    }
}
