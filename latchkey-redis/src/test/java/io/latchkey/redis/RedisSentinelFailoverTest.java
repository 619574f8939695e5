package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import io.latchkey.testing.RedisSentinelSetup;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Locks through Sentinel across real failovers of the master (SIGKILL; the sentinels promote the replica):
 * clients reconnect and wake their waiters; what happens to a lock held during the failover depends on whether it
 * had reached the replica, which replica acknowledgement ({@link RedisOptions}) guarantees and plain asynchronous
 * replication does not.
 */
class RedisSentinelFailoverTest {

    private static RedisSentinelSetup sentinel;

    /** Roomy: a failover takes seconds, and held locks must outlive it with their watchdog renewals. */
    private static final ClientOptions OPTIONS = ClientOptions.builder()
            .watchdogTimeout(Duration.ofSeconds(30))
            .operationTimeout(Duration.ofSeconds(5))
            .build();
    /**
     * A 60 s lease: renewals every 20 s survive any failover the test machine manages, and a waiter's fallback
     * re-check at the holder's lease comes later than the 25 s the test allows for the unlock message.
     */
    private static final ClientOptions LONG_LEASE = OPTIONS.toBuilder().watchdogTimeout(Duration.ofSeconds(60))
            .build();
    private static final Duration EVENTUALLY = Duration.ofSeconds(45);

    @BeforeAll
    static void startSentinel() {
        sentinel = new RedisSentinelSetup(Duration.ofSeconds(2)).start();
    }

    @AfterAll
    static void stopSentinel() {
        if (sentinel != null) {
            sentinel.close();
        }
    }

    private static String name(String prefix) {
        return "failover:" + prefix + ":" + UUID.randomUUID();
    }

    private static String acked(String uri, Duration timeout) {
        return uri + "?replicaAcks=1&replicaAckTimeout=" + timeout.toMillis() + "ms";
    }

    /** Waits until {@code client} can take and give back a lock again, i.e. it reconnected to the new master. */
    private static void awaitWorking(LockClient client) {
        String probe = name("probe");
        Awaitility.await("client works again").atMost(EVENTUALLY).pollInterval(Duration.ofMillis(100))
                .ignoreException(LockUnavailableException.class)
                .until(() -> {
                    Optional<LockLease> lease = client.lock(probe).tryAcquire(Duration.ZERO);
                    lease.ifPresent(LockLease::release);
                    return lease.isPresent();
                });
    }

    @Test
    void withReplicaAcksAHeldLockSurvivesTheFailoverAndItsWaiterIsWokenAfterwards() throws Exception {
        String lockName = name("survives");
        try (LockClient holder = LockClient.connect(acked(sentinel.uri(), Duration.ofSeconds(2)), LONG_LEASE);
             LockClient waiter = LockClient.connect(sentinel.uri(), LONG_LEASE)) {
            LockLease held = holder.lock(lockName).acquire();
            long heldToken = held.fencingToken();
            CompletableFuture<Optional<LockLease>> waiting =
                    waiter.lock(lockName).tryAcquireAsync(Duration.ofSeconds(120), Duration.ofSeconds(30));
            Thread.sleep(200);
            assertThat(waiting).isNotDone();

            sentinel.failover();

            try (LockClient late = LockClient.connect(sentinel.uri(), OPTIONS)) {
                // The promoted replica has the lock: nobody else can take it.
                assertThat(late.lock(lockName).tryAcquire(Duration.ZERO)).isEmpty();
            }
            awaitWorking(holder);
            assertThat(waiting).isNotDone();
            assertThat(held.isValid()).isTrue();
            // Released on the new master: same owner, same token, so no LockLostException.
            held.release();

            // Woken by the unlock message on the new master (re-subscribed after the reconnect). The fallback
            // re-check at the holder's remaining lease (60 s minus at most one 20 s renewal interval and the
            // failover) would normally come after the 25 s allowed here.
            LockLease next = waiting.get(25, TimeUnit.SECONDS).orElseThrow();
            assertThat(next.fencingToken()).isGreaterThan(heldToken);
            next.release();
        }
    }

    @Test
    void withoutReplicaAcksALockTheReplicaDidNotReceiveIsLostButItsTokenDoesNotRepeat() throws Exception {
        String lockName = name("lost");
        try (LockClient holder = LockClient.connect(sentinel.uri(), OPTIONS);
             LockClient other = LockClient.connect(sentinel.uri(), OPTIONS)) {
            AtomicBoolean toldLost = new AtomicBoolean();
            sentinel.freezeReplica();
            LockLease held = holder.lock(lockName).acquire();
            held.onLost(() -> toldLost.set(true));

            sentinel.failover();

            awaitWorking(other);
            // The promoted replica never had the lock nor the namespace's latest token: another client takes it at
            // once, but with a greater token (the promoted server's clock is past the lost one), so storage that
            // checks tokens refuses the lost holder's late writes and accepts the new holder's at once.
            LockLease taken = other.lock(lockName).tryAcquire(Duration.ZERO).orElseThrow();
            assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
            awaitWorking(holder);
            assertThatThrownBy(held::release).isInstanceOf(LockLostException.class);
            assertThat(toldLost).isTrue();
            taken.release();
        }
    }

    @Test
    void withReplicaAcksAnUnreachableReplicaFailsTheAcquireAndLeavesNoLock() throws Exception {
        String lockName = name("unacked");
        try (LockClient acked = LockClient.connect(acked(sentinel.uri(), Duration.ofMillis(200)), OPTIONS);
             LockClient plain = LockClient.connect(sentinel.uri(), OPTIONS)) {
            sentinel.freezeReplica();
            try {
                DistributedLock lock = acked.lock(lockName);
                assertThatThrownBy(lock::lock)
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("only 0 of 1 replicas acknowledged")
                        .hasMessageContaining("within 200 ms")
                        .hasMessageContaining(lockName);
                assertThat(lock.isHeldByCurrentThread()).isFalse();
                assertThat(plain.lock(lockName).isLocked()).isFalse();
            } finally {
                sentinel.thawReplica();
            }
            LockLease lease = acked.lock(lockName).acquire();
            assertThat(sentinel.replica("EXISTS", lockName)).isEqualTo(1L);
            lease.release();
        }
    }

    @Test
    void anApplicationsLettuceClientWithASentinelUriWorks() {
        RedisURI uri = RedisURI.Builder.sentinel("127.0.0.1", sentinel.sentinelPorts().get(0),
                RedisSentinelSetup.MASTER_NAME).withSentinel("127.0.0.1", sentinel.sentinelPorts().get(1)).build();
        RedisClient lettuce = RedisClient.create(uri);
        try (RedisLockClient client = RedisLockClient.create(lettuce, OPTIONS,
                RedisOptions.builder().replicaAcks(1).replicaAckTimeout(Duration.ofSeconds(1)).build())) {
            assertThat(client.address()).isEqualTo("master 'latchkey' via sentinels 127.0.0.1:"
                    + sentinel.sentinelPorts().get(0) + ",127.0.0.1:" + sentinel.sentinelPorts().get(1));
            assertThat(client.toString()).contains("replicaAcks=1");
            DistributedLock lock = client.lock(name("app-client"));
            lock.lock();
            try {
                assertThat(lock.isLocked()).isTrue();
            } finally {
                lock.unlock();
            }
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void everySynchronizerWorksThroughTheSentinels() throws Exception {
        String n = name("all");
        try (RedisLockClient client = (RedisLockClient) LockClient.connect(sentinel.uri(), OPTIONS)) {
            DistributedLock fair = client.fairLock(n + ":fair");
            DistributedLock spin = client.spinLock(n + ":spin");
            io.latchkey.DistributedReadWriteLock rw = client.readWriteLock(n + ":rw");
            for (DistributedLock lock : new DistributedLock[] {fair, spin, rw.writeLock(), rw.readLock()}) {
                assertThat(lock.tryLock()).as(lock.name()).isTrue();
                lock.unlock();
            }
            io.latchkey.DistributedSemaphore semaphore = client.semaphore(n + ":sem");
            assertThat(semaphore.trySetPermits(2)).isTrue();
            semaphore.acquire();
            assertThat(semaphore.availablePermits()).isEqualTo(1);
            semaphore.release();
            io.latchkey.PermitExpirableSemaphore permits = client.permitExpirableSemaphore(n + ":pes");
            assertThat(permits.trySetPermits(1)).isTrue();
            permits.release(permits.acquire(Duration.ofSeconds(10)));
            io.latchkey.DistributedCountDownLatch latch = client.countDownLatch(n + ":latch");
            assertThat(latch.trySetCount(1)).isTrue();
            latch.countDown();
            assertThat(latch.await(Duration.ofSeconds(5))).isTrue();
            DistributedLock lock = client.lock(n);
            lock.lock();
            try {
                assertThat(client.list("failover:all:*")).extracting(io.latchkey.spi.LockInfo::name).contains(n);
            } finally {
                lock.unlock();
            }
        }
    }

    @Test
    void unreachableSentinelsOrAnUnknownMasterFailTheConnectNamingThemButNotThePassword() {
        ClientOptions fast = OPTIONS.toBuilder().operationTimeout(Duration.ofSeconds(1)).build();
        int dead = io.latchkey.testing.TestFiles.freePort();
        String deadUri = "redis-sentinel://:hunter2@127.0.0.1:" + dead + "/latchkey";
        assertThatThrownBy(() -> LockClient.connect(deadUri, fast))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("master 'latchkey' via sentinels 127.0.0.1:" + dead)
                .satisfies(e -> assertThat(fullText(e)).doesNotContain("hunter2"));
        String unknown = "redis-sentinel://:hunter2@" + sentinel.sentinelAddresses() + "/no-such-master";
        assertThatThrownBy(() -> LockClient.connect(unknown, fast))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("master 'no-such-master' via sentinels")
                .satisfies(e -> assertThat(fullText(e)).doesNotContain("hunter2"));
    }

    private static String fullText(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            sb.append(t).append('\n');
            for (Throwable s : t.getSuppressed()) {
                sb.append(s).append('\n');
            }
        }
        return sb.toString();
    }
}
