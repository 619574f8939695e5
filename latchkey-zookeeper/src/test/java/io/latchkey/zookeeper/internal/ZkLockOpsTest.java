package io.latchkey.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.TimeSource;
import io.latchkey.zookeeper.SharedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The remote half alone, against a real embedded server: queueing, tokens, waking, giving up, hand-off. */
class ZkLockOpsTest {

    private CuratorFramework c1;
    private CuratorFramework c2;
    private ZkSession s1;
    private ZkSession s2;
    private ZkLockOps ops1;
    private ZkLockOps ops2;
    private final String base = "/ops-test/" + UUID.randomUUID();

    @BeforeEach
    void setUp() {
        c1 = SharedZooKeeper.curator();
        c2 = SharedZooKeeper.curator();
        s1 = new ZkSession(c1, true, Duration.ofSeconds(3), ZooDefs.Ids.OPEN_ACL_UNSAFE);
        s2 = new ZkSession(c2, true, Duration.ofSeconds(3), ZooDefs.Ids.OPEN_ACL_UNSAFE);
        ops1 = new ZkLockOps(s1, n -> base + "/" + n, ZkLockOps.Kind.EXCLUSIVE, false,
                new HeldNodes(), g -> { });
        ops2 = new ZkLockOps(s2, n -> base + "/" + n, ZkLockOps.Kind.EXCLUSIVE, false,
                new HeldNodes(), g -> { });
    }

    @AfterEach
    void tearDown() {
        s1.close();
        s2.close();
    }

    private static AcquireRequest request(String owner, long waitMillis) {
        long deadline = waitMillis < 0 ? AcquireRequest.NO_DEADLINE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        return new AcquireRequest("a", owner, 30_000, true, deadline, TimeSource.SYSTEM);
    }

    @Test
    void acquireReleaseAndTokensGrow() throws Exception {
        Grant g1 = ops1.acquire(request("o1", -1)).get(5, TimeUnit.SECONDS);
        assertThat(g1).isNotNull();
        assertThat(ops2.isLocked("a").get()).isTrue();
        assertThat(ops1.renew(List.of(g1)).get()).isEmpty();
        assertThat(ops1.release(g1).get()).isTrue();
        assertThat(ops2.isLocked("a").get()).isFalse();
        Grant g2 = ops2.acquire(request("o2", -1)).get(5, TimeUnit.SECONDS);
        assertThat(g2.fencingToken()).isGreaterThan(g1.fencingToken());
        assertThat(ops1.renew(List.of(g1)).get()).containsExactly(g1);
        assertThat(ops2.release(g2).get()).isTrue();
        assertThat(ops2.release(g2).get()).isFalse();
    }

    @Test
    void waiterIsWokenByRelease() throws Exception {
        Grant g1 = ops1.acquire(request("o1", -1)).get(5, TimeUnit.SECONDS);
        CompletableFuture<Grant> waiting = ops2.acquire(request("o2", -1));
        Thread.sleep(200);
        assertThat(waiting).isNotDone();
        long t0 = System.nanoTime();
        ops1.release(g1).get();
        Grant g2 = waiting.get(5, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(500);
        assertThat(g2.fencingToken()).isGreaterThan(g1.fencingToken());
        ops2.release(g2).get();
    }

    @Test
    void timedOutWaiterLeavesTheQueue() throws Exception {
        Grant g1 = ops1.acquire(request("o1", -1)).get(5, TimeUnit.SECONDS);
        assertThat(ops2.acquire(request("o2", 200)).get(5, TimeUnit.SECONDS)).isNull();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (c1.getChildren().forPath(base + "/a").size() > 1 && System.nanoTime() < deadline) {
            Thread.sleep(10); // the give-up's delete is asynchronous
        }
        assertThat(c1.getChildren().forPath(base + "/a")).hasSize(1);
        AcquireRequest cancelled = request("o3", -1);
        CompletableFuture<Grant> f = ops2.acquire(cancelled);
        Thread.sleep(100);
        cancelled.cancel();
        assertThat(f.get(5, TimeUnit.SECONDS)).isNull();
        ops1.release(g1).get();
        assertThat(ops2.isLocked("a").get()).isFalse();
    }

    @Test
    void handOffKeepsTheNodeWithANewToken() throws Exception {
        Grant g1 = ops1.acquire(request("o1", -1)).get(5, TimeUnit.SECONDS);
        CompletableFuture<Grant> remote = ops2.acquire(request("o2", -1));
        Grant g2 = ops1.handOff(g1, request("o1b", -1)).get(5, TimeUnit.SECONDS);
        assertThat(g2.fencingToken()).isGreaterThan(g1.fencingToken());
        assertThat(remote).isNotDone();
        assertThat(ops1.renew(List.of(g2)).get()).isEmpty();
        ops1.release(g2).get();
        Grant g3 = remote.get(5, TimeUnit.SECONDS);
        assertThat(g3.fencingToken()).isGreaterThan(g2.fencingToken());
        ops2.release(g3).get();
    }

    @Test
    void forceUnlockFreesAndRenewReportsLost() throws Exception {
        Grant g1 = ops1.acquire(request("o1", -1)).get(5, TimeUnit.SECONDS);
        assertThat(ops2.forceUnlock("a").get()).isTrue();
        assertThat(ops1.renew(List.of(g1)).get()).containsExactly(g1);
        assertThat(ops1.release(g1).get()).isFalse();
        assertThat(ops2.forceUnlock("a").get()).isFalse();
    }

    @Test
    void loneReacquireSkipsTheListingOnlyWhenNoOneElseCreatedANode() throws Exception {
        Grant g1 = ops1.acquire(request("o1", -1)).get(5, TimeUnit.SECONDS);
        assertThat(ops1.release(g1).get()).isTrue();
        // another client slips in between our release and our re-acquire
        Grant other = ops2.acquire(request("o2", -1)).get(5, TimeUnit.SECONDS);
        CompletableFuture<Grant> again = ops1.acquire(request("o1", -1));
        Thread.sleep(200);
        assertThat(again).as("the counter moved: we list and wait").isNotDone();
        ops2.release(other).get();
        Grant g2 = again.get(5, TimeUnit.SECONDS);
        assertThat(g2.fencingToken()).isGreaterThan(other.fencingToken());
        ops1.release(g2).get();
        for (int i = 0; i < 20; i++) {
            Grant g = ops1.acquire(request("o1", -1)).get(5, TimeUnit.SECONDS);
            assertThat(g.fencingToken()).isGreaterThan(g2.fencingToken());
            g2 = g;
            assertThat(ops2.isLocked("a").get()).isTrue();
            ops1.release(g).get();
        }
    }
}
