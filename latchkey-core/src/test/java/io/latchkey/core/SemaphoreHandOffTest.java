package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The engine's local hand-off of a semaphore's released permits: a client's own waiters get them head first
 * without the permits ever being free at the backend, at most {@code MAX_LOCAL_HAND_OFFS} times in a row (then a
 * release goes to the backend, where another client's waiter can take it); a waiter that does not fit stops it.
 */
class SemaphoreHandOffTest {

    @Test
    void releasesGoToLocalWaitersFirstAtMostSixteenInARow() throws Exception {
        String server = "handoff-" + UUID.randomUUID();
        try (LockClient a = LockClient.connect("mem://" + server); LockClient b = LockClient.connect("mem://" + server)) {
            DistributedSemaphore sa = a.semaphore("pool");
            assertThat(sa.trySetPermits(0)).isTrue();
            List<CompletableFuture<Void>> local = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                local.add(sa.acquireAsync(1));
            }
            CompletableFuture<Boolean> other = b.semaphore("pool").tryAcquireAsync(1, Duration.ofSeconds(20));
            Thread.sleep(200);
            assertThat(local).noneMatch(CompletableFuture::isDone);
            for (int i = 0; i < 16; i++) {
                sa.release(1);
                int served = i + 1;
                assertThat(local.subList(0, served)).as("handed off at once, in order").allMatch(CompletableFuture::isDone);
                assertThat(sa.availablePermits()).as("never free at the backend").isZero();
            }
            assertThat(other).isNotDone();
            sa.release(1); // the 17th goes to the backend: any waiter may take it, the other client's included
            await().atMost(Duration.ofSeconds(10)).until(() -> other.isDone()
                    || local.stream().filter(CompletableFuture::isDone).count() == 17);
            sa.release(1); // a hand-off again
            for (int i = 0; i < 3; i++) { // 21 releases for 21 waiters
                sa.release(1);
            }
            CompletableFuture.allOf(local.toArray(new CompletableFuture<?>[0])).get(10, TimeUnit.SECONDS);
            assertThat(other.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(sa.availablePermits()).isZero();
        }
    }

    @Test
    void aHeadThatDoesNotFitStopsTheHandOffAndTheRestGoesToTheBackend() throws Exception {
        try (LockClient a = LockClient.connect("mem://handoff-" + UUID.randomUUID())) {
            DistributedSemaphore s = a.semaphore("pool");
            assertThat(s.trySetPermits(0)).isTrue();
            CompletableFuture<Void> big = s.acquireAsync(3);
            Thread.sleep(100);
            s.release(2); // does not fit the head: to the backend
            assertThat(big).isNotDone();
            assertThat(s.availablePermits()).isEqualTo(2);
            s.release(1); // the head is woken by the backend's change and takes all three
            big.get(10, TimeUnit.SECONDS);
            assertThat(s.availablePermits()).isZero();
        }
    }
}
