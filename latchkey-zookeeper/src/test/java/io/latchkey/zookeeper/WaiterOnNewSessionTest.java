package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;

/**
 * A waiter that starts while its client's session has just expired: Curator has replaced the ZooKeeper handle with a
 * new one that is not connected yet (its session id is still 0), so the waiter's create is queued on that handle and
 * runs under the session the handle gets once it connects. The node must be known as that session's: otherwise the
 * waiter's next look takes it for a node of an ended session and queues a second node behind it, and the first one
 * stays at the head of the queue, blocking every client, for as long as the new session lives.
 */
class WaiterOnNewSessionTest {

    @Test
    void aWaiterQueuedWhileItsNewSessionConnectsLeavesNoNodeBehind() throws Exception {
        String name = "new-session-" + UUID.randomUUID();
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(10))
                .operationTimeout(Duration.ofSeconds(5)).build();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             CuratorFramework curator = SharedZooKeeper.curator("127.0.0.1:" + proxy.port(), 1500);
             LockClient waiter = ZooKeeperLockClient.create(curator, options);
             ZooKeeperLockClient other = ZooKeeperLockClient.connect(SharedZooKeeper.server().uri(), options);
             CuratorFramework observer = SharedZooKeeper.curator()) {
            LockLease held = other.lock(name).acquire();
            long firstSession = curator.getZookeeperClient().getZooKeeper().getSessionId();
            long deadline = expireAndWaitForNewHandle(proxy, curator);

            // the waiter's first attempt goes out on that handle; the connection comes back while it is out
            CompletableFuture<Optional<LockLease>> waited = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    waited.complete(waiter.lock(name).tryAcquire(Duration.ofSeconds(4)));
                } catch (Throwable e) {
                    waited.completeExceptionally(e);
                }
            }, "waiter-on-new-session");
            thread.start();
            // the first attempt is sent from the waiting thread before it parks
            while (thread.getState() != Thread.State.TIMED_WAITING && thread.getState() != Thread.State.WAITING
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            Thread.sleep(100);
            assertThat(curator.getZookeeperClient().getZooKeeper().getSessionId()).as("still not connected").isZero();
            proxy.restore();
            assertThat(waited.get(20, TimeUnit.SECONDS)).as("the lock stayed held").isEmpty();
            long newSession = curator.getZookeeperClient().getZooKeeper().getSessionId();
            assertThat(newSession).isNotIn(0L, firstSession);

            // the waiter gave up: the only node left is the holder's
            String lockPath = other.lockPath(name);
            assertThat(observer.getChildren().forPath(lockPath)).hasSize(1);
            held.release();
            Optional<LockLease> next = other.lock(name).tryAcquire(Duration.ofSeconds(3));
            assertThat(next).as("the lock is free once its holder released it").isPresent();
            next.get().release();
            assertThat(observer.getChildren().forPath(lockPath)).isEmpty();
        }
    }

    /**
     * The same for a permit node: a watchdog permit taken by a waiter that started on the new handle must count as
     * the new session's, so that the watchdog's check keeps it and its release deletes it. (A permit's create
     * follows a read on the same handle, so it runs once the handle has its session; this keeps it so.)
     */
    @Test
    void aPermitTakenWhileItsNewSessionConnectsIsKeptAndReleased() throws Exception {
        String name = "new-session-permit-" + UUID.randomUUID();
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(3))
                .operationTimeout(Duration.ofSeconds(5)).build();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             CuratorFramework curator = SharedZooKeeper.curator("127.0.0.1:" + proxy.port(), 1500);
             LockClient waiter = ZooKeeperLockClient.create(curator, options);
             ZooKeeperLockClient other = ZooKeeperLockClient.connect(SharedZooKeeper.server().uri(), options)) {
            assertThat(other.permitExpirableSemaphore(name).trySetPermits(1)).isTrue();
            long deadline = expireAndWaitForNewHandle(proxy, curator);

            CompletableFuture<Optional<String>> taken = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    taken.complete(waiter.permitExpirableSemaphore(name).tryAcquire(Duration.ofSeconds(8)));
                } catch (Throwable e) {
                    taken.completeExceptionally(e);
                }
            }, "permit-on-new-session");
            thread.start();
            while (thread.getState() != Thread.State.TIMED_WAITING && thread.getState() != Thread.State.WAITING
                    && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            Thread.sleep(100);
            proxy.restore();
            Optional<String> permit = taken.get(20, TimeUnit.SECONDS);
            assertThat(permit).as("the permit was free").isPresent();
            // two watchdog checks (every second): the node is the new session's, so the permit is still held
            Thread.sleep(2_500);
            assertThat(other.permitExpirableSemaphore(name).availablePermits()).as("still taken").isZero();
            assertThat(waiter.permitExpirableSemaphore(name).release(permit.get())).as("released").isTrue();
            assertThat(other.permitExpirableSemaphore(name).availablePermits()).as("returned").isEqualTo(1);
        }
    }

    /** Cuts the proxy until Curator has expired the session and made a new handle, which cannot connect yet. */
    private static long expireAndWaitForNewHandle(TcpProxy proxy, CuratorFramework curator) throws Exception {
        proxy.cut();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        ZooKeeper handle = curator.getZookeeperClient().getZooKeeper();
        while (handle.getSessionId() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
            handle = curator.getZookeeperClient().getZooKeeper();
        }
        assertThat(handle.getSessionId()).as("a new handle without a session yet").isZero();
        return deadline;
    }
}
