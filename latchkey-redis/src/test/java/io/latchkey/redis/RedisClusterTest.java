package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.spi.LockInfo;
import io.latchkey.testing.RedisClusterExtension;
import io.latchkey.testing.RedisClusterSetup;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Redis backend on a real three-master Redis Cluster (one cluster for the class): keys spread over every
 * master with each lock's keys in one slot, exclusion and pub/sub wake-ups across clients, watchdog renewal of
 * holds in many slots, and the cluster URI's errors.
 */
class RedisClusterTest {

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final String namespace = "cluster-test:" + UUID.randomUUID().toString().substring(0, 8) + "/";

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    private RedisLockClient connect(Duration watchdogTimeout) {
        // Roomy operation timeout: a loaded 2-core machine runs three servers and several builds.
        ClientOptions options = ClientOptions.builder().namespace(namespace).watchdogTimeout(watchdogTimeout)
                .operationTimeout(Duration.ofSeconds(10)).build();
        RedisLockClient client = (RedisLockClient) LockClient.connect(cluster.uri(), options);
        clients.add(client);
        return client;
    }

    private RedisLockClient connect() {
        return connect(Duration.ofSeconds(30));
    }

    private static int slotOnServer(RedisClusterSetup setup, String key) {
        return ((Long) setup.execute(0, "CLUSTER", "KEYSLOT", key)).intValue();
    }

    @Test
    void locksSpreadOverEveryMasterWithEachLocksKeysOnItsMaster() throws Exception {
        RedisLockClient client = connect();
        RedisClusterSetup setup = cluster.setup();
        List<LockLease> leases = new ArrayList<>();
        Set<Integer> masters = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            String name = "spread-" + i;
            leases.add(client.lock(name).acquire(Duration.ofSeconds(60)));
            LockKeys keys = new LockKeys(namespace, name, true);
            int slot = slotOnServer(setup, keys.lockKey);
            assertThat(LockKeys.slot(keys.lockKey)).as("our CRC16 agrees with the server").isEqualTo(slot);
            assertThat(slotOnServer(setup, keys.tokenKey)).as("token key in the lock's slot").isEqualTo(slot);
            assertThat(slotOnServer(setup, keys.channel)).as("unlock channel in the lock's slot").isEqualTo(slot);
            int master = setup.masterOfSlot(slot);
            masters.add(master);
            // Keyed commands are answered only by the slot's master (others reply MOVED): the keys live there.
            assertThat(setup.execute(master, "EXISTS", keys.lockKey, keys.tokenKey)).isEqualTo(2L);
        }
        assertThat(masters).as("200 names land on all three masters").containsExactlyInAnyOrder(0, 1, 2);
        assertThat(leases).allMatch(LockLease::isValid);

        List<LockInfo> listed = client.list("spread-*");
        assertThat(listed).as("the inspector scans every master").hasSize(200);
        assertThat(listed).extracting(LockInfo::name).doesNotHaveDuplicates();
        leases.forEach(LockLease::release);
        assertThat(client.list("spread-*")).isEmpty();
    }

    @Test
    void callsOfOneSlotReadyTogetherGoOutAsOneGroupWhileOtherSlotsGoTheirOwnWay() throws Exception {
        RedisLockOps ops = connect().redisLockOps();
        RedisClusterSetup setup = cluster.setup();
        int slot = LockKeys.slot(namespace + "{grouped}");
        int master = setup.masterOfSlot(slot);
        String elsewhere = null;
        for (int i = 0; elsewhere == null; i++) {
            int other = LockKeys.slot(namespace + "apart-" + i);
            elsewhere = setup.masterOfSlot(other) != master ? "apart-" + i : null;
        }
        long before = scriptCalls(setup, master);
        setup.execute(master, "CLIENT", "PAUSE", "300");
        List<CompletableFuture<RemoteLockOps.Attempt>> sameSlot = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            sameSlot.add(ops.tryAcquire(RedisTestSupport.request("{grouped}name-" + i, "owner-" + i, 60_000,
                    Duration.ZERO), null));
        }
        // another master is not paused, and a call of another slot does not wait for the paused group
        Grant apart = ops.tryAcquire(RedisTestSupport.request(elsewhere, "owner-apart", 60_000, Duration.ZERO), null)
                .get(200, TimeUnit.MILLISECONDS).grant();
        assertThat(apart).as("a call of another slot answered while the group's master is paused").isNotNull();
        List<Grant> grants = new ArrayList<>();
        for (CompletableFuture<RemoteLockOps.Attempt> a : sameSlot) {
            grants.add(a.get(10, TimeUnit.SECONDS).grant());
        }
        assertThat(grants).as("each name of the slot granted").doesNotContainNull();
        for (int i = 1; i < grants.size(); i++) {
            assertThat(grants.get(i).fencingToken()).as("tokens increase in the order of the calls")
                    .isGreaterThan(grants.get(i - 1).fencingToken());
        }
        // the first calls alone (one per place in flight), then one group of the others (each may need its EVAL
        // after NOSCRIPT); alone they would be 16
        assertThat(scriptCalls(setup, master) - before).as("script calls on the slot's master")
                .isLessThanOrEqualTo(2L * (ScriptGroups.IN_FLIGHT + 1));
        for (Grant g : grants) {
            assertThat(ops.release(g).get(10, TimeUnit.SECONDS)).as("released").isTrue();
        }
        assertThat(ops.release(apart).get(10, TimeUnit.SECONDS)).isTrue();
    }

    /** EVALSHA and EVAL calls master {@code index} ran. */
    private static long scriptCalls(RedisClusterSetup setup, int index) {
        String stats = (String) setup.execute(index, "INFO", "commandstats");
        long total = 0;
        Matcher m = Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)").matcher(stats);
        while (m.find()) {
            total += Long.parseLong(m.group(2));
        }
        return total;
    }

    @Test
    void namesWhoseRedissonChannelWouldLeaveTheSlotStillLockAndWake() throws Exception {
        RedisLockClient holder = connect();
        RedisLockClient waiter = connect();
        for (String name : List.of("brace{open", "close}brace", "empty{}tag", "{tagged}name")) {
            LockKeys keys = new LockKeys(namespace, name, true);
            assertThat(slotOnServer(cluster.setup(), keys.channel)).as(name)
                    .isEqualTo(slotOnServer(cluster.setup(), keys.lockKey));
            assertWokenByUnlockMessage(holder, waiter, name);
        }
    }

    @Test
    void aWaiterIsWokenBySharedPubSubWellBeforeTheHoldersLease() throws Exception {
        RedisLockClient holder = connect();
        RedisLockClient waiter = connect();
        Set<Integer> masters = new HashSet<>();
        for (int i = 0; masters.size() < 3; i++) {
            String name = "wake-" + i;
            int master = cluster.setup().masterOfSlot(LockKeys.slot(namespace + name));
            if (masters.add(master)) {
                assertWokenByUnlockMessage(holder, waiter, name);
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void withoutShardedPubSubWaitersAreWokenByClassicPubSub() throws Exception {
        // What a cluster of Redis 6 gets: scripts PUBLISH (broadcast over the cluster bus), waiters SUBSCRIBE.
        ClientOptions options = ClientOptions.builder().namespace(namespace).operationTimeout(Duration.ofSeconds(10))
                .build();
        RedisLockClient holder = RedisLockClient.connectCluster(cluster.uri(), options, false);
        clients.add(holder);
        RedisLockClient waiter = RedisLockClient.connectCluster(cluster.uri(), options, false);
        clients.add(waiter);
        String name = "classic-wake";
        DistributedLock held = holder.lock(name);
        held.lock(Duration.ofSeconds(60));
        String channel = new LockKeys(namespace, name, true).channel;
        CompletableFuture<Long> acquired = CompletableFuture.supplyAsync(() -> {
            try {
                DistributedLock lock = waiter.lock(name);
                if (!lock.tryLock(45, TimeUnit.SECONDS)) {
                    return -1L;
                }
                long at = System.nanoTime();
                lock.unlock();
                return at;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return -1L;
            }
        });
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            for (int i = 0; i < RedisClusterSetup.MASTERS; i++) {
                if (((List<Object>) cluster.setup().execute(i, "PUBSUB", "CHANNELS")).contains(channel)) {
                    return true;
                }
            }
            return false;
        });
        long released = System.nanoTime();
        held.unlock();
        long at = acquired.get(45, TimeUnit.SECONDS);
        assertThat(at).isPositive();
        assertThat(TimeUnit.NANOSECONDS.toMillis(at - released)).as("woken by the classic message, not the lease")
                .isLessThan(15_000L);
    }

    /**
     * The holder takes a 60 s lease; the waiter (another client) waits. Its only wake-ups are the unlock message and
     * the re-check at the holder's lease, 60 s away, so a grant within 15 s of the unlock came by the message.
     */
    @SuppressWarnings("unchecked")
    private void assertWokenByUnlockMessage(RedisLockClient holder, RedisLockClient waiter, String name)
            throws Exception {
        DistributedLock held = holder.lock(name);
        held.lock(Duration.ofSeconds(60));
        LockKeys keys = new LockKeys(namespace, name, true);
        int master = cluster.setup().masterOfSlot(LockKeys.slot(keys.lockKey));
        ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "cluster-test-waiter");
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
                lock.unlock();
                return at;
            });
            // The waiter's subscription is a shard channel on the lock's master.
            Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                    assertThat((List<Object>) cluster.setup().execute(master, "PUBSUB", "SHARDCHANNELS"))
                            .contains(keys.channel));
            long released = System.nanoTime();
            held.unlock();
            long at = acquired.get(45, TimeUnit.SECONDS);
            assertThat(at).as("%s acquired", name).isPositive();
            assertThat(TimeUnit.NANOSECONDS.toMillis(at - released)).as("%s woken by the unlock message", name)
                    .isLessThan(15_000L);
        } finally {
            thread.shutdownNow();
        }
    }

    @Test
    void mutualExclusionHoldsAcrossClientsOnEveryMaster() throws Exception {
        List<RedisLockClient> both = List.of(connect(), connect());
        List<String> names = List.of("mutex-a", "mutex-b", "mutex-c", "mutex-d");
        AtomicInteger[] inside = new AtomicInteger[names.size()];
        int[] counters = new int[names.size()];
        for (int i = 0; i < inside.length; i++) {
            inside[i] = new AtomicInteger();
        }
        AtomicBoolean overlap = new AtomicBoolean();
        ExecutorService threads = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "cluster-test-mutex");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int w = 0; w < 4; w++) {
                RedisLockClient client = both.get(w % 2);
                done.add(threads.submit(() -> {
                    for (int round = 0; round < 20; round++) {
                        for (int n = 0; n < names.size(); n++) {
                            DistributedLock lock = client.lock(names.get(n));
                            lock.lock();
                            try {
                                if (inside[n].incrementAndGet() != 1) {
                                    overlap.set(true);
                                }
                                counters[n]++;
                                inside[n].decrementAndGet();
                            } finally {
                                lock.unlock();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(90, TimeUnit.SECONDS);
            }
        } finally {
            threads.shutdownNow();
        }
        assertThat(overlap).isFalse();
        for (int counter : counters) {
            assertThat(counter).isEqualTo(80);
        }
    }

    @Test
    void watchdogRenewsHoldsInManySlotsWithoutCrossSlotErrors() throws Exception {
        // Renewal every 1.3 s; a hold not renewed is gone after 4 s. Roomy: a renewal round still unanswered when a
        // lease runs out counts as lost, and on a loaded 2-core machine a cold client's first rounds (one script
        // per slot, each first meeting NOSCRIPT) have taken over a second.
        RedisLockClient client = connect(Duration.ofSeconds(4));
        RedisLockClient other = connect(Duration.ofSeconds(4));
        AtomicInteger lost = new AtomicInteger();
        List<LockLease> leases = new ArrayList<>();
        for (int i = 0; i < 80; i++) {
            leases.add(client.lock("renew-" + i).acquire());
        }
        DistributedReadWriteLock rw1 = client.readWriteLock("renew-rw-1");
        DistributedReadWriteLock rw2 = client.readWriteLock("renew-rw-2");
        leases.addAll(List.of(rw1.readLock().acquire(), rw2.writeLock().acquire(),
                client.fairLock("renew-fair-1").acquire(), client.fairLock("renew-fair-2").acquire()));
        leases.forEach(l -> l.onLost(lost::incrementAndGet));
        List<DistributedLock> spins = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            DistributedLock spin = client.spinLock("renew-spin-" + i);
            spin.lock();
            spins.add(spin);
        }

        Thread.sleep(9_000); // more than two watchdog timeouts: only renewals keep them
        assertThat(lost).as("holds lost: a renewal batch failed").hasValue(0);
        assertThat(leases).allMatch(LockLease::isValid);
        assertThat(spins).allMatch(DistributedLock::isHeldByCurrentThread);
        for (int i = 0; i < 80; i += 7) {
            assertThat(other.lock("renew-" + i).tryLock()).as("renew-%d still held", i).isFalse();
        }
        assertThat(other.spinLock("renew-spin-0").tryLock()).as("spin lock still held").isFalse();
        LockKeys first = new LockKeys(namespace, "renew-0", true);
        long pttl = (Long) cluster.setup().execute(cluster.setup().masterOfSlot(LockKeys.slot(first.lockKey)),
                "PTTL", first.lockKey);
        assertThat(pttl).as("renewed lease").isPositive();
        leases.forEach(LockLease::release);
        spins.forEach(DistributedLock::unlock);
    }

    @Test
    void spinLocksExcludeAcrossClientsAndWaitWithoutPubSub() throws Exception {
        RedisLockClient a = connect();
        RedisLockClient b = connect();
        DistributedLock held = a.spinLock("spin");
        held.lock();
        assertThat(b.spinLock("spin").tryLock()).isFalse();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                DistributedLock lock = b.spinLock("spin");
                boolean got = lock.tryLock(Duration.ofSeconds(30), Duration.ofSeconds(5));
                if (got) {
                    lock.unlock();
                }
                return got;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        Thread.sleep(200);
        assertThat(b.subscriptions().size()).as("a spin waiter subscribes to nothing").isZero();
        held.unlock();
        assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void latchAndSemaphoreWorkAcrossClients() throws Exception {
        RedisLockClient a = connect();
        RedisLockClient b = connect();
        DistributedCountDownLatch latch = a.countDownLatch("latch");
        assertThat(latch.trySetCount(1)).isTrue();
        CompletableFuture<Boolean> opened = CompletableFuture.supplyAsync(() -> {
            try {
                return b.countDownLatch("latch").await(Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        });
        // Count down only once the waiter listens, so that the message (not the first check) opens it.
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> b.subscriptions().size() == 1);
        latch.countDown();
        assertThat(opened.get(30, TimeUnit.SECONDS)).isTrue();

        assertThat(a.semaphore("sem").trySetPermits(1)).isTrue();
        assertThat(b.semaphore("sem").tryAcquire(1, Duration.ZERO)).isTrue();
        assertThat(a.semaphore("sem").tryAcquire(1, Duration.ZERO)).isFalse();
        b.semaphore("sem").release(1);
        assertThat(a.semaphore("sem").availablePermits()).isEqualTo(1);
    }

    @Test
    void anApplicationsClusterClientIsUsedAndNotShutDown() {
        List<RedisURI> seeds = new ArrayList<>();
        for (int port : cluster.setup().ports()) {
            seeds.add(RedisURI.create("127.0.0.1", port));
        }
        RedisClusterClient app = RedisClusterClient.create(seeds);
        try {
            RedisLockClient client = RedisLockClient.create(app,
                    ClientOptions.builder().namespace(namespace).operationTimeout(Duration.ofSeconds(10)).build());
            try (LockLease lease = client.lock("app-client").acquire(Duration.ofSeconds(10))) {
                assertThat(lease.fencingToken()).isPositive();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            assertThat(client.address()).startsWith("cluster 127.0.0.1:");
            client.close();
            // The application's client still works after ours closed.
            try (var conn = app.connect()) {
                assertThat(conn.sync().ping()).isEqualTo("PONG");
            }
        } finally {
            app.shutdown();
        }
    }

    @Test
    void aClusterUriWithoutSeedsIsRefusedWithTheReason() {
        assertThatThrownBy(() -> LockClient.connect("redis-cluster://"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no seed node");
        assertThatThrownBy(() -> LockClient.connect("redis-cluster://user:s3cret@"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no seed node")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> LockClient.connect("redis-cluster://127.0.0.1:7000,,127.0.0.1:7001"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("empty seed");
        assertThatThrownBy(() -> LockClient.connect("redis-cluster://127.0.0.1:7000/1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("only database 0");
    }

    @Test
    void unreachableSeedsFailWithLockUnavailableNamingThem() {
        int port = io.latchkey.testing.TestFiles.freePort();
        ClientOptions options = ClientOptions.builder().operationTimeout(Duration.ofSeconds(2)).build();
        assertThatThrownBy(() -> LockClient.connect("redis-cluster://:pw@127.0.0.1:" + port, options))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + port)
                .hasMessageNotContaining("pw@");
    }
}
