package io.latchkey.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps.Attempt;
import io.latchkey.core.TimeSource;
import io.latchkey.zookeeper.SharedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The remote half alone, against a real embedded server: single attempts, queueing, tokens, wake-ups, withdrawal,
 * hand-off.
 */
class ZkLockOpsTest {

    private CuratorFramework c1;
    private CuratorFramework c2;
    private ZkSession s1;
    private ZkSession s2;
    private ZkLockOps ops1;
    private ZkLockOps ops2;
    private final String base = "/ops-test/" + UUID.randomUUID();
    private final java.util.concurrent.ScheduledExecutorService timer =
            java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "zk-ops-test-timer"));
    private final io.latchkey.core.MaintenanceScheduler scheduler = io.latchkey.core.MaintenanceScheduler.of(timer);

    @BeforeEach
    void setUp() {
        c1 = SharedZooKeeper.curator();
        c2 = SharedZooKeeper.curator();
        s1 = new ZkSession(c1, true, Duration.ofSeconds(3), ZooDefs.Ids.OPEN_ACL_UNSAFE, scheduler);
        s2 = new ZkSession(c2, true, Duration.ofSeconds(3), ZooDefs.Ids.OPEN_ACL_UNSAFE, scheduler);
        ops1 = new ZkLockOps(s1, n -> base + "/" + n, ZkLockOps.Kind.EXCLUSIVE, false,
                new HeldNodes(), g -> { }, "test");
        ops2 = new ZkLockOps(s2, n -> base + "/" + n, ZkLockOps.Kind.EXCLUSIVE, false,
                new HeldNodes(), g -> { }, "test");
    }

    @AfterEach
    void tearDown() {
        s1.close();
        s2.close();
        timer.shutdownNow();
    }

    private static AcquireRequest request(String owner, long waitMillis) {
        long deadline = waitMillis < 0 ? AcquireRequest.NO_DEADLINE
                : System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
        return new AcquireRequest("a", owner, 30_000, true, deadline, TimeSource.SYSTEM);
    }

    private static Grant take(ZkLockOps ops, String owner) throws Exception {
        Attempt a = ops.tryAcquire(request(owner, -1), null).get(5, TimeUnit.SECONDS);
        assertThat(a.isGranted()).as("granted at the first look").isTrue();
        return a.grant();
    }

    private List<String> children() throws Exception {
        return c1.getChildren().forPath(base + "/a");
    }

    @Test
    void acquireReleaseAndTokensGrow() throws Exception {
        Grant g1 = take(ops1, "o1");
        assertThat(ops2.isLocked("a").get()).isTrue();
        assertThat(ops1.renew(List.of(g1)).get()).isEmpty();
        assertThat(ops1.release(g1).get()).isTrue();
        assertThat(ops2.isLocked("a").get()).isFalse();
        Grant g2 = take(ops2, "o2");
        assertThat(g2.fencingToken()).isGreaterThan(g1.fencingToken());
        assertThat(ops1.renew(List.of(g1)).get()).containsExactly(g1);
        assertThat(ops2.release(g2).get()).isTrue();
        assertThat(ops2.release(g2).get()).isFalse();
    }

    @Test
    void aBusyLookQueuesANodeAndALookAfterTheReleaseTakesTheLock() throws Exception {
        Grant g1 = take(ops1, "o1");
        AcquireRequest r2 = request("o2", -1);
        Attempt first = ops2.tryAcquire(r2, null).get(5, TimeUnit.SECONDS);
        assertThat(first.isGranted()).isFalse();
        assertThat(first.entry()).as("queued with its node").isNotNull();
        assertThat(children()).hasSize(2);
        Attempt again = ops2.tryAcquire(r2, first.entry()).get(5, TimeUnit.SECONDS);
        assertThat(again.isGranted()).isFalse();
        assertThat(again.entry()).as("the same place").isEqualTo(first.entry());
        assertThat(children()).as("a look creates nothing").hasSize(2);
        ops1.release(g1).get();
        Attempt granted = ops2.tryAcquire(r2, first.entry()).get(5, TimeUnit.SECONDS);
        assertThat(granted.isGranted()).isTrue();
        assertThat(granted.grant().fencingToken()).isGreaterThan(g1.fencingToken());
        ops2.release(granted.grant()).get();
        assertThat(ops1.isLocked("a").get()).isFalse();
    }

    @Test
    void onlyTheClientWhoseWaiterIsNextIsWokenAndACreateWakesNobody() throws Exception {
        CuratorFramework c3 = SharedZooKeeper.curator();
        ZkSession s3 = new ZkSession(c3, true, Duration.ofSeconds(3), ZooDefs.Ids.OPEN_ACL_UNSAFE, scheduler);
        try {
            ZkLockOps ops3 = new ZkLockOps(s3, n -> base + "/" + n, ZkLockOps.Kind.EXCLUSIVE, false,
                    new HeldNodes(), g -> { }, "test");
            Grant g1 = take(ops1, "o1");
            AtomicInteger pushes2 = new AtomicInteger();
            AtomicInteger pushes3 = new AtomicInteger();
            RemoteCountOps.Subscription sub2 = ops2.subscribe("a", pushes2::incrementAndGet).get(5, TimeUnit.SECONDS);
            RemoteCountOps.Subscription sub3 = ops3.subscribe("a", pushes3::incrementAndGet).get(5, TimeUnit.SECONDS);
            AcquireRequest r2 = request("o2", -1);
            AcquireRequest r3 = request("o3", -1);
            Attempt q2 = ops2.tryAcquire(r2, null).get(5, TimeUnit.SECONDS);
            Attempt q3 = ops3.tryAcquire(r3, null).get(5, TimeUnit.SECONDS);
            assertThat(q2.isGranted()).isFalse();
            assertThat(q3.isGranted()).isFalse();
            long t0 = System.nanoTime();
            ops1.release(g1).get();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (pushes2.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(pushes2.get()).as("the next waiter's client is told").isEqualTo(1);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(500);
            Thread.sleep(200);
            assertThat(pushes3.get()).as("the waiter behind it is not").isZero();
            Attempt g2 = ops2.tryAcquire(r2, q2.entry()).get(5, TimeUnit.SECONDS);
            assertThat(g2.isGranted()).isTrue();
            ops2.release(g2.grant()).get();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (pushes3.get() == 0 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(pushes3.get()).isEqualTo(1);
            assertThat(ops3.tryAcquire(r3, q3.entry()).get(5, TimeUnit.SECONDS).isGranted()).isTrue();
            sub2.close();
            sub3.close();
        } finally {
            s3.close();
        }
    }

    @Test
    void withdrawDeletesTheWaitersNode() throws Exception {
        Grant g1 = take(ops1, "o1");
        AcquireRequest r2 = request("o2", -1);
        Attempt queued = ops2.tryAcquire(r2, null).get(5, TimeUnit.SECONDS);
        assertThat(children()).hasSize(2);
        ops2.withdraw(r2, queued.entry()).get(5, TimeUnit.SECONDS);
        assertThat(children()).hasSize(1);
        ops2.withdraw(r2, null).get(5, TimeUnit.SECONDS); // nothing to find: an attempt that failed cleans up itself
        ops1.release(g1).get();
        assertThat(ops2.isLocked("a").get()).isFalse();
    }

    @Test
    void aWaiterWhoseNodeVanishedQueuesAgain() throws Exception {
        Grant g1 = take(ops1, "o1");
        AcquireRequest r2 = request("o2", -1);
        Attempt queued = ops2.tryAcquire(r2, null).get(5, TimeUnit.SECONDS);
        String node = queued.entry().substring(0, queued.entry().indexOf('@'));
        c1.delete().forPath(base + "/a/" + node);
        Attempt again = ops2.tryAcquire(r2, queued.entry()).get(5, TimeUnit.SECONDS);
        assertThat(again.isGranted()).isFalse();
        assertThat(again.entry()).isNotEqualTo(queued.entry());
        assertThat(children()).hasSize(2);
        ops2.withdraw(r2, again.entry()).get(5, TimeUnit.SECONDS);
        ops1.release(g1).get();
    }

    @Test
    void anEntryOfAnEndedSessionIsNeverTrustedAndQueuesAfresh() throws Exception {
        Grant g1 = take(ops1, "o1");
        AcquireRequest r2 = request("o2", -1);
        Attempt queued = ops2.tryAcquire(r2, null).get(5, TimeUnit.SECONDS);
        ZkQueueEntry mine = ZkQueueEntry.parse(queued.entry());
        String stale = new ZkQueueEntry(mine.node(), mine.sessionId() + 1, mine.czxid()).format();
        ops1.release(g1).get();
        Attempt again = ops2.tryAcquire(r2, stale).get(5, TimeUnit.SECONDS);
        assertThat(again.isGranted()).as("behind the node it no longer trusts").isFalse();
        assertThat(again.entry()).isNotEqualTo(queued.entry());
        ops2.withdraw(r2, queued.entry()).get(5, TimeUnit.SECONDS);
        Attempt granted = ops2.tryAcquire(r2, again.entry()).get(5, TimeUnit.SECONDS);
        assertThat(granted.isGranted()).isTrue();
        ops2.release(granted.grant()).get();
        assertThat(ops1.isLocked("a").get()).isFalse();
    }

    @Test
    void handOffKeepsTheNodeWithANewToken() throws Exception {
        Grant g1 = take(ops1, "o1");
        AcquireRequest r2 = request("o2", -1);
        Attempt remote = ops2.tryAcquire(r2, null).get(5, TimeUnit.SECONDS);
        Grant g2 = ops1.handOff(g1, request("o1b", -1)).get(5, TimeUnit.SECONDS);
        assertThat(g2.fencingToken()).isGreaterThan(g1.fencingToken());
        assertThat(ops2.tryAcquire(r2, remote.entry()).get(5, TimeUnit.SECONDS).isGranted()).isFalse();
        assertThat(ops1.renew(List.of(g2)).get()).isEmpty();
        ops1.release(g2).get();
        Attempt g3 = ops2.tryAcquire(r2, remote.entry()).get(5, TimeUnit.SECONDS);
        assertThat(g3.isGranted()).isTrue();
        assertThat(g3.grant().fencingToken()).isGreaterThan(g2.fencingToken());
        ops2.release(g3.grant()).get();
    }

    @Test
    void forceUnlockFreesAndRenewReportsLost() throws Exception {
        Grant g1 = take(ops1, "o1");
        assertThat(ops2.forceUnlock("a").get()).isTrue();
        assertThat(ops1.renew(List.of(g1)).get()).containsExactly(g1);
        assertThat(ops1.release(g1).get()).isFalse();
        assertThat(ops2.forceUnlock("a").get()).isFalse();
    }

    @Test
    void loneReacquireSkipsTheListingOnlyWhenNoOneElseCreatedANode() throws Exception {
        Grant g1 = take(ops1, "o1");
        assertThat(ops1.release(g1).get()).isTrue();
        // another client slips in between our release and our re-acquire
        Grant other = take(ops2, "o2");
        AcquireRequest again = request("o1", -1);
        Attempt busy = ops1.tryAcquire(again, null).get(5, TimeUnit.SECONDS);
        assertThat(busy.isGranted()).as("the counter moved: we list and queue").isFalse();
        ops2.release(other).get();
        Grant g2 = ops1.tryAcquire(again, busy.entry()).get(5, TimeUnit.SECONDS).grant();
        assertThat(g2.fencingToken()).isGreaterThan(other.fencingToken());
        ops1.release(g2).get();
        for (int i = 0; i < 20; i++) {
            Grant g = take(ops1, "o1");
            assertThat(g.fencingToken()).isGreaterThan(g2.fencingToken());
            g2 = g;
            assertThat(ops2.isLocked("a").get()).isTrue();
            ops1.release(g).get();
        }
    }

    @Test
    void aLockPathReapedAndReCreatedByAnotherHolderIsNeverTakenForOursAlone() throws Exception {
        Grant g1 = take(ops1, "o1");
        assertThat(ops1.release(g1).get()).isTrue();
        // as the server's container reaper would, then another client holds with sequence number 0 on the new path:
        // our next create gets number 1, the very number the counter alone would take for "alone"
        c2.delete().forPath(base + "/a");
        Grant other = take(ops2, "o2");
        Attempt look = ops1.tryAcquire(request("o1", -1), null).get(5, TimeUnit.SECONDS);
        assertThat(look.isGranted()).as("the zxids left room for a reap and a re-creation: we list and queue")
                .isFalse();
        ops2.release(other).get();
    }

    @Test
    void anEntryOfAnotherFormQueuesAfresh() {
        assertThat(ZkQueueEntry.parse("no-session")).isNull();
        assertThat(ZkQueueEntry.parse("_c_x-lock-0000000001@zz@1")).isNull();
        ZkQueueEntry e = new ZkQueueEntry("_c_x-lock-0000000001", -5L, 42L);
        assertThat(ZkQueueEntry.parse(e.format())).isEqualTo(e);
    }
}
