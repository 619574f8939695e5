package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Read-write lock, semaphores and latch against a real server, across two clients. */
class SynchronizersTest {

    private LockClient a;
    private LockClient b;
    private String name;

    @BeforeEach
    void setUp() {
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(3)).build();
        a = LockClient.connect(SharedZooKeeper.server().uri(), options);
        b = LockClient.connect(SharedZooKeeper.server().uri(), options);
        name = "sync-" + UUID.randomUUID();
    }

    @AfterEach
    void tearDown() {
        a.close();
        b.close();
    }

    @Test
    void readersShareWritersExclude() throws Exception {
        DistributedReadWriteLock rwA = a.readWriteLock(name);
        DistributedReadWriteLock rwB = b.readWriteLock(name);
        rwA.readLock().lock();
        assertThat(rwB.readLock().tryLock(2, TimeUnit.SECONDS)).as("readers share").isTrue();
        rwB.readLock().unlock();
        assertThat(rwB.writeLock().tryLock()).as("a writer waits for the reader").isFalse();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            rwB.writeLock().lock();
            rwB.writeLock().unlock();
        });
        Thread.sleep(200);
        assertThat(writer).isNotDone();
        rwA.readLock().unlock();
        writer.get(5, TimeUnit.SECONDS);
    }

    @Test
    void writeThenReadDowngradesAndUpgradeIsRefused() throws Exception {
        DistributedReadWriteLock rw = a.readWriteLock(name);
        DistributedLock otherRead = b.readWriteLock(name).readLock();
        rw.writeLock().lock();
        rw.readLock().lock(); // downgrade: the writer may read
        assertThat(otherRead.tryLock()).isFalse();
        rw.writeLock().unlock();
        assertThat(otherRead.tryLock(2, TimeUnit.SECONDS)).as("other readers join after the downgrade").isTrue();
        otherRead.unlock();
        assertThatThrownBy(() -> rw.writeLock().tryLock()).isInstanceOf(IllegalMonitorStateException.class);
        rw.readLock().unlock();
        assertThat(b.readWriteLock(name).writeLock().tryLock(2, TimeUnit.SECONDS)).isTrue();
        b.readWriteLock(name).writeLock().unlock();
    }

    @Test
    void semaphoreLimitsAndCrashedHoldersPermitsComeBack() throws Exception {
        DistributedSemaphore sa = a.semaphore(name);
        DistributedSemaphore sb = b.semaphore(name);
        assertThat(sa.trySetPermits(2)).isTrue();
        assertThat(sb.trySetPermits(5)).isFalse();
        sa.acquire();
        sb.acquire();
        assertThat(sb.availablePermits()).isZero();
        assertThat(sb.tryAcquire(1, Duration.ofMillis(200))).isFalse();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return sb.tryAcquire(1, Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(200);
        assertThat(waiting).isNotDone();
        sa.release();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
        // b holds two; closing b (a crash as far as the server is concerned) gives them back
        b.close();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (sa.availablePermits() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(sa.availablePermits()).isEqualTo(2);
        sa.addPermits(1);
        assertThat(sa.drainPermits()).isEqualTo(3);
        assertThat(sa.availablePermits()).isZero();
        sa.release(3);
        assertThat(sa.availablePermits()).isEqualTo(3);
    }

    @Test
    void permitExpirableSemaphoreLeasesRunOut() throws Exception {
        PermitExpirableSemaphore pa = a.permitExpirableSemaphore(name);
        PermitExpirableSemaphore pb = b.permitExpirableSemaphore(name);
        assertThat(pa.trySetPermits(1)).isTrue();
        String id = pa.acquire(Duration.ofMillis(400));
        assertThat(pb.tryAcquire(Duration.ZERO, Duration.ofSeconds(5))).isEmpty();
        Optional<String> next = pb.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5));
        assertThat(next).as("the first lease ran out").isPresent();
        assertThat(pa.release(id)).as("expired").isFalse();
        assertThat(pb.updateLease(next.get(), Duration.ofSeconds(10))).isTrue();
        assertThat(pb.release(next.get())).isTrue();
        assertThat(pa.availablePermits()).isEqualTo(1);
    }

    @Test
    void watchdogPermitsOutliveTheWatchdogTimeoutAndGoWithTheirSession() throws Exception {
        PermitExpirableSemaphore pa = a.permitExpirableSemaphore(name);
        PermitExpirableSemaphore pb = b.permitExpirableSemaphore(name);
        assertThat(pa.trySetPermits(1)).isTrue();
        String id = pb.acquire();
        // renewed (checked) by b's watchdog well past its 3 s timeout: still held
        assertThat(pa.tryAcquire(Duration.ofSeconds(4), Duration.ofSeconds(5))).isEmpty();
        assertThat(pa.release(id)).as("another client releases it by id").isTrue();
        String mine = pa.tryAcquire(Duration.ofSeconds(2), Duration.ofSeconds(30)).orElseThrow();
        assertThat(pb.release(id)).as("already released").isFalse();
        assertThat(pa.release(mine)).isTrue();
        String again = pb.acquire();
        CompletableFuture<Optional<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return pa.tryAcquire(Duration.ofSeconds(20), Duration.ofSeconds(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Thread.sleep(200);
        assertThat(waiting).isNotDone();
        b.close(); // its session ends, and the permit node with it
        assertThat(waiting.get(20, TimeUnit.SECONDS)).as("the closed holder's permit " + again + " came back")
                .isPresent();
    }

    @Test
    void latchOpensForEveryWaiter() throws Exception {
        DistributedCountDownLatch la = a.countDownLatch(name);
        DistributedCountDownLatch lb = b.countDownLatch(name);
        // not 50 ms: the engine's timed await gives up at its deadline even while its first look is out, and in a
        // cold JVM that first look (class loading of the waiting path) can take longer
        assertThat(lb.await(Duration.ofSeconds(5))).as("an unarmed latch is open").isTrue();
        assertThat(la.trySetCount(2)).isTrue();
        assertThat(lb.trySetCount(3)).isFalse();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return lb.await(Duration.ofSeconds(10));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        la.countDown();
        assertThat(lb.getCount()).isEqualTo(1);
        Thread.sleep(100);
        assertThat(waiter).isNotDone();
        long t0 = System.nanoTime();
        lb.countDown();
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(1000);
        assertThat(la.getCount()).isZero();
        assertThat(la.trySetCount(1)).as("re-armed after reaching zero").isTrue();
    }
}
