package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.RedisClusterExtension;
import io.latchkey.testing.RedisClusterSetup;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lock's slot moves to another master (resharding) while it is held, renewed and waited for: the hold moves
 * with its keys (fencing counter included), commands follow MOVED, and the waiter's shard subscription, which the
 * old master drops, follows the slot so that the unlock still wakes it by message.
 */
class RedisClusterReshardingTest {

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private RedisLockClient connect(Duration watchdogTimeout) {
        RedisLockClient client = (RedisLockClient) LockClient.connect(cluster.uri(), ClientOptions.builder()
                .watchdogTimeout(watchdogTimeout).operationTimeout(Duration.ofSeconds(10)).build());
        clients.add(client);
        return client;
    }

    private static int nextMaster(RedisClusterSetup setup, String key) {
        return (setup.masterOfSlot(LockKeys.slot(key)) + 1) % RedisClusterSetup.MASTERS;
    }

    @Test
    @SuppressWarnings("unchecked")
    void aWaiterIsWokenByTheUnlockAfterItsSlotMoved() throws Exception {
        RedisClusterSetup setup = cluster.setup();
        RedisLockClient holder = connect(Duration.ofSeconds(30));
        RedisLockClient waiter = connect(Duration.ofSeconds(30));
        String name = "move-wait:" + UUID.randomUUID();
        LockKeys keys = new LockKeys("", name, true);
        int slot = LockKeys.slot(name);
        DistributedLock held = holder.lock(name);
        held.lock(Duration.ofSeconds(60));
        long token = held.fencingToken().orElseThrow();
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "resharding-test-waiter");
            t.setDaemon(true);
            return t;
        });
        try {
            Future<Long> acquired = thread.submit(() -> {
                DistributedLock lock = waiter.lock(name);
                if (!lock.tryLock(45, TimeUnit.SECONDS)) {
                    return -1L;
                }
                long at = System.nanoTime();
                assertThat(lock.fencingToken().orElseThrow()).isGreaterThan(token);
                lock.unlock();
                return at;
            });
            int from = setup.masterOfSlot(slot);
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
                    ((List<Object>) setup.execute(from, "PUBSUB", "SHARDCHANNELS")).contains(keys.channel));

            int to = nextMaster(setup, name);
            setup.migrateSlot(slot, to);
            // The old master dropped the subscription; the client subscribes again on the new one.
            Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
                    ((List<Object>) setup.execute(to, "PUBSUB", "SHARDCHANNELS")).contains(keys.channel));
            assertThat(setup.execute(to, "EXISTS", keys.lockKey, keys.tokenKey)).as("the hold moved").isEqualTo(2L);

            long released = System.nanoTime();
            held.unlock();
            long at = acquired.get(45, TimeUnit.SECONDS);
            assertThat(at).as("acquired").isPositive();
            assertThat(TimeUnit.NANOSECONDS.toMillis(at - released)).as("woken by the message, not the 60 s lease")
                    .isLessThan(15_000L);
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void watchdogRenewalAndExclusionFollowTheSlot() throws Exception {
        RedisClusterSetup setup = cluster.setup();
        RedisLockClient holder = connect(Duration.ofSeconds(3));
        RedisLockClient other = connect(Duration.ofSeconds(3));
        String name = "move-renew:" + UUID.randomUUID();
        LockLease lease = holder.lock(name).acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);

        setup.migrateSlot(LockKeys.slot(name), nextMaster(setup, name));
        Thread.sleep(7_000); // renewals every second, a hold not renewed is gone after 3 s
        assertThat(lost).as("renewal followed MOVED").hasValue(0);
        assertThat(lease.isValid()).isTrue();
        assertThat(other.lock(name).tryLock()).as("still exclusive on the new master").isFalse();
        long token = lease.fencingToken();
        lease.release();
        try (LockLease next = other.lock(name).acquire(Duration.ofSeconds(5))) {
            assertThat(next.fencingToken()).as("the counter moved with the lock").isGreaterThan(token);
        }
    }
}
