package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Curator's own recipes and Latchkey on the same paths exclude each other, and each wakes the other promptly. */
class CuratorInteropTest {

    private static final long PROMPT_MS = 500;

    private CuratorFramework curator;
    private ZooKeeperLockClient client;
    private String name;

    @BeforeEach
    void setUp() {
        curator = SharedZooKeeper.curator();
        client = ZooKeeperLockClient.create(SharedZooKeeper.curator(), ClientOptions.builder()
                .watchdogTimeout(Duration.ofSeconds(5)).build());
        name = "interop-" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        client.close();
        curator.close();
    }

    @Test
    void curatorHoldsLatchkeyWaitsAndWakesPromptly() throws Exception {
        InterProcessMutex mutex = new InterProcessMutex(curator, client.lockPath(name));
        DistributedLock lock = client.lock(name);
        mutex.acquire();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.tryLock()).isFalse();
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            lock.lock();
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        Thread.sleep(300);
        assertThat(acquiredAt).isNotDone();
        long releasedAt = System.nanoTime();
        mutex.release();
        long woke = acquiredAt.get(5, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(woke - releasedAt)).isLessThan(PROMPT_MS);
    }

    @Test
    void latchkeyHoldsCuratorWaitsAndWakesPromptly() throws Exception {
        InterProcessMutex mutex = new InterProcessMutex(curator, client.lockPath(name));
        DistributedLock lock = client.lock(name);
        lock.lock();
        assertThat(mutex.acquire(100, TimeUnit.MILLISECONDS)).isFalse();
        CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
            try {
                mutex.acquire();
                long at = System.nanoTime();
                mutex.release();
                return at;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(300);
        assertThat(acquiredAt).isNotDone();
        long releasedAt = System.nanoTime();
        lock.unlock();
        long woke = acquiredAt.get(5, TimeUnit.SECONDS);
        assertThat(TimeUnit.NANOSECONDS.toMillis(woke - releasedAt)).isLessThan(PROMPT_MS);
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void nodesLookLikeCuratorsProtectedLockNodes() throws Exception {
        DistributedLock lock = client.lock(name);
        lock.lock();
        try {
            var children = curator.getChildren().forPath(client.lockPath(name));
            assertThat(children).singleElement().asString().matches("_c_[0-9a-f-]{36}-lock-\\d{10}");
            assertThat(new InterProcessMutex(curator, client.lockPath(name)).getParticipantNodes()).hasSize(1);
        } finally {
            lock.unlock();
        }
    }

    @Test
    void readWriteLockInteropWithCuratorsReadWriteLock() throws Exception {
        InterProcessReadWriteLock rw = new InterProcessReadWriteLock(curator, client.readWriteLockPath(name));
        rw.readLock().acquire();
        DistributedLock read = client.readWriteLock(name).readLock();
        DistributedLock write = client.readWriteLock(name).writeLock();
        assertThat(read.tryLock(2, TimeUnit.SECONDS)).as("readers share with Curator's reader").isTrue();
        read.unlock();
        assertThat(write.tryLock()).as("a writer waits for Curator's reader").isFalse();
        rw.readLock().release();
        assertThat(write.tryLock(2, TimeUnit.SECONDS)).isTrue();
        assertThat(rw.readLock().acquire(100, TimeUnit.MILLISECONDS)).as("Curator's reader waits for our writer")
                .isFalse();
        write.unlock();
        assertThat(rw.readLock().acquire(2, TimeUnit.SECONDS)).isTrue();
        rw.readLock().release();
    }

    @Test
    void closingAClientOnAnApplicationsFrameworkDoesNotCloseItAndLeavesNoNodes() throws Exception {
        ZooKeeperLockClient own = ZooKeeperLockClient.create(curator);
        DistributedLock lock = own.lock(name);
        lock.lock();
        own.close();
        assertThat(curator.getZookeeperClient().isConnected()).as("the application's framework stays open").isTrue();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!curator.getChildren().forPath(own.lockPath(name)).isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(curator.getChildren().forPath(own.lockPath(name))).isEmpty();
        assertThat(client.lock(name).tryLock()).isTrue();
        client.lock(name).unlock();
    }
}
