package io.latchkey.core.mem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Capability;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockUnavailableException;
import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The mem server's semaphores and latches, across two clients of one server. */
class MemSynchronizersTest {

    private final String server = "sync-" + UUID.randomUUID();
    private final MemLockClient a = MemLockClient.create(server);
    private final MemLockClient b = MemLockClient.create(server);

    @AfterEach
    void close() {
        a.close();
        b.close();
    }

    @Test
    void capabilitiesListThem() {
        assertThat(a.capabilities()).contains(Capability.SEMAPHORE, Capability.PERMIT_EXPIRABLE_SEMAPHORE,
                Capability.COUNT_DOWN_LATCH);
    }

    @Test
    void semaphoreCountsPermitsAcrossClientsAndWakesWaiters() throws Exception {
        DistributedSemaphore sa = a.semaphore("slots");
        DistributedSemaphore sb = b.semaphore("slots");
        assertThat(sa.trySetPermits(2)).isTrue();
        assertThat(sb.trySetPermits(5)).isFalse();
        assertThat(sa.tryAcquire()).isTrue();
        assertThat(sb.tryAcquire()).isTrue();
        assertThat(sb.tryAcquire()).isFalse();
        assertThat(sb.tryAcquire(1, Duration.ofMillis(50))).isFalse();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return sb.tryAcquire(2, Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        sa.release();
        assertThat(waiter).isNotCompleted();
        sa.release();
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(sa.availablePermits()).isZero();
        sb.release(2);
        assertThat(sa.drainPermits()).isEqualTo(2);
        assertThatThrownBy(() -> sa.acquire(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("permits must be positive");
    }

    @Test
    void interruptedSemaphoreWaiterTakesNothing() throws Exception {
        DistributedSemaphore s = a.semaphore("interrupt");
        s.trySetPermits(0);
        Thread t = new Thread(() -> {
            try {
                s.acquire();
            } catch (InterruptedException expected) {
                // left the line
            }
        });
        t.start();
        await().atMost(Duration.ofSeconds(3)).until(() -> t.getState() == Thread.State.WAITING);
        t.interrupt();
        t.join(3000);
        s.release();
        assertThat(b.semaphore("interrupt").availablePermits()).isEqualTo(1);
    }

    @Test
    void expirablePermitsReturnByThemselves() throws Exception {
        PermitExpirableSemaphore pa = a.permitExpirableSemaphore("leased");
        PermitExpirableSemaphore pb = b.permitExpirableSemaphore("leased");
        assertThat(pa.trySetPermits(1)).isTrue();
        String id = pa.acquire(Duration.ofMillis(300));
        assertThat(pb.availablePermits()).isZero();
        assertThat(pb.tryAcquire(Duration.ZERO, Duration.ofSeconds(1))).isEmpty();
        long start = System.nanoTime();
        Optional<String> next = pb.tryAcquire(Duration.ofSeconds(5), Duration.ofSeconds(5));
        assertThat(next).isPresent();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(3000);
        assertThat(pa.release(id)).as("already expired").isFalse();
        assertThat(pb.updateLease(next.get(), Duration.ofSeconds(10))).isTrue();
        assertThat(pb.release(next.get())).isTrue();
        assertThat(pb.release(next.get())).isFalse();
        assertThat(pa.availablePermits()).isEqualTo(1);
    }

    @Test
    void watchdogPermitsAreNotOfferedHere() {
        PermitExpirableSemaphore pa = a.permitExpirableSemaphore("watchdog");
        assertThatThrownBy(pa::acquire).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("does not renew permits by a watchdog");
        assertThatThrownBy(() -> pa.tryAcquire(Duration.ofSeconds(1)))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void latchOpensAtZero() throws Exception {
        DistributedCountDownLatch la = a.countDownLatch("latch");
        DistributedCountDownLatch lb = b.countDownLatch("latch");
        assertThat(lb.await(Duration.ofMillis(10))).as("unarmed latch is open").isTrue();
        assertThat(la.trySetCount(2)).isTrue();
        assertThat(lb.trySetCount(3)).isFalse();
        assertThat(lb.await(Duration.ofMillis(50))).isFalse();
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return lb.await(Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        la.countDown();
        assertThat(lb.getCount()).isEqualTo(1);
        la.countDown();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(la.getCount()).isZero();
    }

    @Test
    void closeFailsWaitsAndOutageFailsOperations() throws Exception {
        DistributedCountDownLatch latch = a.countDownLatch("closing");
        latch.trySetCount(1);
        CompletableFuture<Throwable> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                latch.await();
                return null;
            } catch (Throwable e) {
                return e;
            }
        });
        await().atMost(Duration.ofSeconds(3)).until(() -> b.countDownLatch("closing").getCount() == 1);
        Thread.sleep(50);
        a.close();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(LockUnavailableException.class);
        assertThatThrownBy(() -> a.semaphore("x")).isInstanceOf(IllegalStateException.class);
        b.setServerAvailable(false);
        try {
            assertThatThrownBy(() -> b.semaphore("x").tryAcquire()).isInstanceOf(LockUnavailableException.class);
        } finally {
            b.setServerAvailable(true);
        }
    }
}
