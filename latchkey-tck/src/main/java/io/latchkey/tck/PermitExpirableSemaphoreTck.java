package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Capability;
import io.latchkey.LockClient;
import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockClient#permitExpirableSemaphore}: permits are named and leased; an expired permit returns by itself
 * (a crashed holder cannot leak it) and its id is then worthless. Skipped (with the reason) for backends without
 * {@link Capability#PERMIT_EXPIRABLE_SEMAPHORE}.
 */
public abstract class PermitExpirableSemaphoreTck extends TckBase {

    @BeforeEach
    final void requirePermitExpirableSemaphores() {
        assumeCapability(Capability.PERMIT_EXPIRABLE_SEMAPHORE);
    }

    @Test
    void permitsHaveDistinctIdsAndAreReleasedOnce() throws Exception {
        String name = newName();
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(name);
        assertThat(semaphore.name()).isEqualTo(name);
        assertThat(semaphore.trySetPermits(2)).isTrue();
        assertThat(semaphore.trySetPermits(3)).isFalse();
        String first = semaphore.acquire(Duration.ofSeconds(30));
        Optional<String> second = openClient().permitExpirableSemaphore(name)
                .tryAcquire(Duration.ZERO, Duration.ofSeconds(30));
        assertThat(second).isPresent().get().isNotEqualTo(first);
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.tryAcquire(Duration.ofMillis(200), Duration.ofSeconds(30))).isEmpty();
        assertThat(semaphore.release(first)).isTrue();
        assertThat(semaphore.release(first)).as("released twice").isFalse();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
        assertThat(semaphore.release(second.get())).isTrue();
        assertThat(semaphore.release("no-such-permit")).isFalse();
        assertThat(semaphore.availablePermits()).isEqualTo(2);
    }

    @Test
    void closingTheClientReleasesItsWatchdogPermits() throws Exception {
        String name = newName();
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(name);
        assertThat(semaphore.trySetPermits(1)).isTrue();
        io.latchkey.LockClient holder = openClient();
        try {
            holder.permitExpirableSemaphore(name).acquire();
        } catch (UnsupportedOperationException noWatchdogPermits) {
            org.junit.jupiter.api.Assumptions.assumeTrue(false, "the backend does not renew permits by a watchdog");
        }
        assertThat(semaphore.availablePermits()).isZero();
        holder.close();
        assertThat(semaphore.availablePermits()).as("released on close, not after its lease").isEqualTo(1);
    }

    @Test
    void watchdogRenewedPermitsOnEveryBackendButMem() throws Exception {
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(newName());
        assertThat(semaphore.trySetPermits(1)).isTrue();
        if (backendName().equals("mem")) {
            assertThatThrownBy(semaphore::acquire).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("mem");
            return;
        }
        String id = semaphore.acquire();
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.tryAcquire(Duration.ZERO)).isEmpty();
        assertThat(semaphore.release(id)).isTrue();
        String again = semaphore.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
        assertThat(semaphore.release(again)).isTrue();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
    }

    @Test
    void permitCountsSaturateAndMayGoBelowZero() throws Exception {
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(newName());
        semaphore.addPermits(-3);
        assertThat(semaphore.availablePermits()).isEqualTo(-3);
        assertThat(semaphore.tryAcquire(Duration.ZERO, Duration.ofSeconds(30))).isEmpty();
        PermitExpirableSemaphore full = client().permitExpirableSemaphore(newName());
        assertThat(full.trySetPermits(Integer.MAX_VALUE)).isTrue();
        full.addPermits(10);
        assertThat(full.availablePermits()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void anExpiredPermitReturnsByItself() throws Exception {
        String name = newName();
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(name);
        semaphore.trySetPermits(1);
        // Opened before the 300 ms lease starts: connecting (a cluster client loads the topology) is not waiting.
        PermitExpirableSemaphore other = openClient().permitExpirableSemaphore(name);
        String leased = semaphore.acquire(Duration.ofMillis(300));
        long start = System.nanoTime();
        Optional<String> next = other.tryAcquire(Duration.ofMillis(300).plus(slack()), Duration.ofSeconds(30));
        assertThat(next).as("the permit after its lease").isPresent();
        assertThat(millisSince(start)).isGreaterThanOrEqualTo(250);
        assertThat(semaphore.release(leased)).as("release of an expired permit").isFalse();
        assertThat(semaphore.updateLease(leased, Duration.ofSeconds(30))).as("renewal of an expired permit")
                .isFalse();
        assertThat(other.availablePermits()).as("the stale release must not free the new holder's permit")
                .isZero();
        assertThat(other.release(next.get())).isTrue();
    }

    @Test
    void updateLeaseKeepsAPermit() throws Exception {
        String name = newName();
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(name);
        semaphore.trySetPermits(1);
        String id = semaphore.acquire(Duration.ofMillis(400));
        assertThat(semaphore.updateLease(id, Duration.ofSeconds(30))).isTrue();
        await().during(Duration.ofMillis(800)).atMost(Duration.ofMillis(800).plus(slack()))
                .until(() -> semaphore.availablePermits() == 0);
        assertThat(semaphore.release(id)).isTrue();
        assertThat(semaphore.availablePermits()).isEqualTo(1);
    }

    @Test
    void addPermitsWakesAWaiter() throws Exception {
        String name = newName();
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(name);
        semaphore.trySetPermits(0);
        LockClient waiterClient = openClient();
        Forked<String> waiter = fork("waiter",
                () -> waiterClient.permitExpirableSemaphore(name).acquire(Duration.ofSeconds(30)));
        awaitBlocked(waiter);
        semaphore.addPermits(1);
        String id = waiter.get(slack());
        assertThat(semaphore.availablePermits()).isZero();
        assertThat(semaphore.release(id)).isTrue();
    }

    @Test
    void asyncAcquireCompletesOnAReleaseElsewhereTimesOutAndCancelsLeavingNothing() throws Exception {
        String name = newName();
        PermitExpirableSemaphore semaphore = client().permitExpirableSemaphore(name);
        PermitExpirableSemaphore other = openClient().permitExpirableSemaphore(name);
        semaphore.trySetPermits(1);
        String held = other.acquire(Duration.ofSeconds(30));

        java.util.concurrent.CompletableFuture<String> waiting =
                asyncOrSkip(() -> semaphore.acquireAsync(Duration.ofSeconds(30)));
        assertThat(semaphore.tryAcquireAsync(Duration.ofMillis(100), Duration.ofSeconds(30))
                .get(10, java.util.concurrent.TimeUnit.SECONDS)).as("a timed asynchronous acquire gives up").isEmpty();
        assertThat(waiting).isNotDone();
        assertThat(other.release(held)).isTrue();
        String mine = waiting.get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(mine).isNotEqualTo(held);
        assertThat(semaphore.releaseAsync(mine).get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();

        String again = other.acquire(Duration.ofSeconds(30));
        java.util.concurrent.CompletableFuture<String> cancelled = semaphore.acquireAsync(Duration.ofSeconds(30));
        assertThat(cancelled.cancel(false)).isTrue();
        other.release(again);
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                assertThat(other.availablePermits()).as("a cancelled waiter keeps no permit").isEqualTo(1));
    }
}
