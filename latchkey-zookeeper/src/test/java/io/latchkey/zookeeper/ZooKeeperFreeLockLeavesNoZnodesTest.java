package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A free lock's path is an empty container node that the server deletes on its own container check: how long it
 * lingers (measured with a 1 s check interval; 60 s is the server default), and that Curator's
 * {@code InterProcessMutex} still works on a path that was reaped.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ZooKeeperFreeLockLeavesNoZnodesTest {

    private static final Duration CHECK = Duration.ofSeconds(1);
    private static final int NAMES = 50;

    @Test
    void freeLockPathsAreGoneAfterAboutOneContainerCheck() throws Exception {
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().tickTime(Duration.ofMillis(200))
                .containerCheckInterval(CHECK).start();
             LockClient client = LockClient.connect(zk.uri(), ClientOptions.builder()
                     .watchdogTimeout(Duration.ofSeconds(2)).build());
             CuratorFramework curator = SharedZooKeeper.curator(zk.connectString(), 5_000)) {
            String prefix = "free-" + UUID.randomUUID() + "-";
            for (int i = 0; i < NAMES; i++) {
                DistributedLock lock = client.lock(prefix + i);
                lock.lock();
                lock.unlock();
            }
            long freedAt = System.nanoTime();
            assertThat(curator.getChildren().forPath("/latchkey/locks")).as("right after release").isNotEmpty();
            long goneAfterMillis = -1;
            while (System.nanoTime() - freedAt < TimeUnit.SECONDS.toNanos(30)) {
                if (children(curator, "/latchkey/locks") == 0) {
                    goneAfterMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - freedAt);
                    break;
                }
                Thread.sleep(50);
            }
            System.out.printf("%d free lock paths gone %d ms after their release (container check every %d ms)%n",
                    NAMES, goneAfterMillis, CHECK.toMillis());
            assertThat(goneAfterMillis).as("ms until no lock path was left").isNotNegative()
                    .isLessThan(CHECK.toMillis() * 2 + NAMES * 6 + 10_000);

            // Curator's InterProcessMutex on a reaped path: it re-creates the parents, and still excludes ours.
            String name = prefix + "0";
            String path = ((ZooKeeperLockClient) client).lockPath(name);
            InterProcessMutex mutex = new InterProcessMutex(curator, path);
            assertThat(mutex.acquire(10, TimeUnit.SECONDS)).isTrue();
            try {
                assertThat(client.lock(name).tryLock()).as("held by Curator").isFalse();
            } finally {
                mutex.release();
            }
            DistributedLock ours = client.lock(name);
            assertThat(ours.tryLock(5, TimeUnit.SECONDS)).isTrue();
            ours.unlock();
        }
    }

    private static int children(CuratorFramework curator, String path) throws Exception {
        try {
            return curator.getChildren().forPath(path).size();
        } catch (KeeperException.NoNodeException e) {
            return 0;
        }
    }
}
