package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.Locks;
import io.latchkey.RedLock;
import io.latchkey.RedLockLease;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** RedLock over five independent redis-server processes, one {@link RedisLockClient} per server and owner. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class RedisRedLockTest {

    private static final int N = 5;
    private static final Duration LEASE = Duration.ofSeconds(5);
    /**
     * Much smaller than the lease, yet roomy: a live server that misses it counts as failed, and with two servers
     * down that would make the acquire give up on a loaded machine.
     */
    private static final Duration NODE_TIMEOUT = Duration.ofMillis(300);
    /** The drift allowance of the algorithm: 1 % of the lease + 2 ms. */
    private static final Duration DRIFT = LEASE.dividedBy(100).plusMillis(2);

    private final List<RedisServer> servers = new ArrayList<>();
    /** The RedLock's clients, one per server. */
    private final List<RedisLockClient> mine = new ArrayList<>();
    /** A second owner's clients, one per server. */
    private final List<RedisLockClient> others = new ArrayList<>();
    private final String name = uniqueName("redlock");

    @BeforeEach
    void startServers() {
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofMillis(900))
                .operationTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; i < N; i++) {
            RedisServer server = RedisServer.standalone().start();
            servers.add(server);
            mine.add(RedisLockClient.connect(server.uri(), options));
            others.add(RedisLockClient.connect(server.uri(), options));
        }
    }

    @AfterEach
    void stopServers() {
        mine.forEach(RedisLockClient::close);
        others.forEach(RedisLockClient::close);
        servers.forEach(RedisServer::close);
    }

    private static RedLock redLock(List<RedisLockClient> clients, String name) {
        List<DistributedLock> parts = new ArrayList<>();
        for (RedisLockClient c : clients) {
            parts.add(c.lock(name));
        }
        return Locks.redLock(NODE_TIMEOUT, parts);
    }

    /** How many running servers hold the lock's hash (whoever owns it). */
    private int lockedServers() {
        int locked = 0;
        for (RedisServer server : servers) {
            if (server.isRunning() && ((Number) server.execute("EXISTS", name)).longValue() == 1) {
                locked++;
            }
        }
        return locked;
    }

    @Test
    void acquiresOnEveryServerAndReportsValidityAsLeaseMinusElapsedMinusDrift() throws Exception {
        RedLock lock = redLock(mine, name);
        long before = System.nanoTime();
        RedLockLease held = lock.acquire(LEASE);
        long took = System.nanoTime() - before;
        Duration first = held.validity();
        assertThat(held.heldParts()).isEqualTo(N);
        assertThat(first).isLessThanOrEqualTo(LEASE.minus(DRIFT))
                .isGreaterThan(LEASE.minus(DRIFT).minusNanos(took).minusMillis(1_000));
        assertThat(lockedServers()).isEqualTo(N);
        for (RedisServer server : servers) {
            long pttl = ((Number) server.execute("PTTL", name)).longValue();
            assertThat(pttl).as("the server's lease").isPositive().isLessThanOrEqualTo(LEASE.toMillis());
        }
        Thread.sleep(200);
        assertThat(held.validity()).as("validity counts down").isLessThanOrEqualTo(first.minusMillis(200));
        held.release();
        assertThat(held.validity()).isZero();
        assertThat(lockedServers()).isZero();
    }

    @Test
    void acquiresWithTwoServersDown() throws Exception {
        servers.get(1).kill();
        servers.get(3).stop();
        RedLock lock = redLock(mine, name);
        Optional<LockLease> lease = lock.tryAcquire(Duration.ofSeconds(5), LEASE);
        assertThat(lease).isPresent();
        RedLockLease held = (RedLockLease) lease.get();
        assertThat(held.heldParts()).isEqualTo(3);
        assertThat(held.validity()).isPositive().isLessThanOrEqualTo(LEASE.minus(DRIFT));
        assertThat(lockedServers()).isEqualTo(3);
        assertThat(redLock(others, name).tryAcquire(Duration.ofMillis(700), LEASE))
                .as("a second RedLock while the first holds a quorum").isEmpty();
        held.release();
        assertThat(lockedServers()).isZero();
    }

    @Test
    void failsWithThreeServersDownAndHoldsNothingOnTheLiveOnes() {
        servers.get(0).kill();
        servers.get(2).kill();
        servers.get(4).stop();
        RedLock lock = redLock(mine, name);
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ofSeconds(2), LEASE))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("3 of 5 parts failed")
                .hasMessageContaining("quorum of 3");
        Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> lockedServers() == 0);
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void releasesThePartsItTookWhenOthersAreBusy() throws Exception {
        List<LockLease> competitor = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            competitor.add(others.get(i).lock(name).acquire(Duration.ofSeconds(10)));
        }
        RedLock lock = redLock(mine, name);
        assertThat(lock.tryAcquire(Duration.ofMillis(700), LEASE)).as("only two servers free").isEmpty();
        for (int i = 3; i < N; i++) {
            int server = i;
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
                    ((Number) servers.get(server).execute("EXISTS", name)).longValue() == 0);
        }
        competitor.forEach(LockLease::release);
        RedLockLease held = lock.acquire(LEASE);
        assertThat(held.heldParts()).isEqualTo(N);
        held.release();
    }

    @Test
    void aPausedServerCostsAtMostThePerNodeTimeout() throws Exception {
        RedLock lock = redLock(mine, name);
        // shorter than the operation timeout (5 s), so the paused server's late grant comes back and is released
        servers.get(4).pauseClients(Duration.ofMillis(3_000));
        long before = System.nanoTime();
        RedLockLease held = lock.acquire(LEASE);
        long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
        Duration validity = held.validity();
        assertThat(held.heldParts()).isEqualTo(4);
        assertThat(tookMs).as("ms to acquire with one server paused for 3000 ms (per-node timeout 300 ms)")
                .isLessThan(2_500);
        // the attempt waited the per-node timeout for the paused server, and that time is gone from the validity
        assertThat(validity).isLessThanOrEqualTo(LEASE.minus(DRIFT).minus(NODE_TIMEOUT))
                .isGreaterThan(LEASE.minus(DRIFT).minusMillis(tookMs + 1_000));
        held.release();
        // the paused server's late grant is given back when it answers
        Awaitility.await().atMost(Duration.ofSeconds(15)).until(() -> lockedServers() == 0);
    }

    @Test
    void twoRedLocksOverTheSameServersExcludeEachOther() throws Exception {
        List<RedLock> locks = List.of(redLock(mine, name), redLock(others, name));
        AtomicBoolean inside = new AtomicBoolean();
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger entries = new AtomicInteger();
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (RedLock lock : locks) {
            runs.add(CompletableFuture.runAsync(() -> {
                for (int i = 0; i < 5; i++) {
                    try {
                        Optional<LockLease> lease = lock.tryAcquire(Duration.ofSeconds(20), LEASE);
                        assertThat(lease).isPresent();
                        if (!inside.compareAndSet(false, true)) {
                            overlaps.incrementAndGet();
                        }
                        entries.incrementAndGet();
                        Thread.sleep(20);
                        inside.set(false);
                        lease.get().release();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }));
        }
        CompletableFuture.allOf(runs.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        assertThat(entries.get()).isEqualTo(10);
        assertThat(overlaps.get()).isZero();
        assertThat(lockedServers()).isZero();
    }
}
