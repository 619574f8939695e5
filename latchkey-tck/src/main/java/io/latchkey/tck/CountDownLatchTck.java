package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.Capability;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.LockClient;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link LockClient#countDownLatch}: {@link java.util.concurrent.CountDownLatch} across clients, armed with
 * {@code trySetCount}; waiters everywhere are woken at zero. Skipped (with the reason) for backends without
 * {@link Capability#COUNT_DOWN_LATCH}.
 */
public abstract class CountDownLatchTck extends TckBase {

    @BeforeEach
    final void requireLatches() {
        assumeCapability(Capability.COUNT_DOWN_LATCH);
    }

    @Test
    void armCountDownAndRearm() throws Exception {
        String name = newName();
        DistributedCountDownLatch latch = client().countDownLatch(name);
        DistributedCountDownLatch other = openClient().countDownLatch(name);
        assertThat(latch.name()).isEqualTo(name);
        assertThat(latch.getCount()).isZero();
        assertThat(latch.await(Duration.ZERO)).as("an unarmed latch is open").isTrue();
        assertThat(latch.trySetCount(2)).isTrue();
        assertThat(other.trySetCount(5)).as("an armed latch keeps its count").isFalse();
        assertThat(other.getCount()).isEqualTo(2);
        long start = System.nanoTime();
        assertThat(latch.await(Duration.ofMillis(300))).isFalse();
        assertThat(millisSince(start)).isGreaterThanOrEqualTo(290);
        other.countDown();
        assertThat(latch.getCount()).isEqualTo(1);
        other.countDown();
        assertThat(latch.getCount()).isZero();
        assertThat(latch.await(Duration.ZERO)).isTrue();
        other.countDown();
        assertThat(latch.getCount()).as("counting down an open latch").isZero();
        assertThat(latch.trySetCount(1)).as("an open latch can be armed again").isTrue();
        latch.countDown();
    }

    @Test
    void waitersInEveryClientAreWokenAtZero() throws Exception {
        String name = newName();
        DistributedCountDownLatch latch = client().countDownLatch(name);
        latch.trySetCount(2);
        LockClient a = openClient();
        LockClient b = openClient();
        Forked<Boolean> first = fork("await-a", () -> {
            a.countDownLatch(name).await();
            return true;
        });
        Forked<Boolean> second = fork("await-b", () -> b.countDownLatch(name).await(Duration.ofSeconds(30)));
        Forked<Boolean> third = fork("await-same", () -> {
            latch.await();
            return true;
        });
        awaitBlocked(first);
        awaitBlocked(second);
        awaitBlocked(third);
        latch.countDown();
        Thread.sleep(200);
        assertThat(first.isDone() || second.isDone() || third.isDone()).as("woken before zero").isFalse();
        openClient().countDownLatch(name).countDown();
        assertThat(first.get(slack())).isTrue();
        assertThat(second.get(slack())).isTrue();
        assertThat(third.get(slack())).isTrue();
    }

    @Test
    void interruptedAwaitThrows() throws Exception {
        String name = newName();
        client().countDownLatch(name).trySetCount(1);
        Forked<Object> waiter = fork("waiter", () -> {
            try {
                client().countDownLatch(name).await();
                return "opened";
            } catch (InterruptedException e) {
                return e;
            }
        });
        awaitBlocked(waiter);
        waiter.thread().interrupt();
        assertThat(waiter.get(slack())).isInstanceOf(InterruptedException.class);
        assertThat(client().countDownLatch(name).getCount()).isEqualTo(1);
    }

    @Test
    void asyncAwaitCompletesAtZeroAndTimesOut() throws Exception {
        String name = newName();
        DistributedCountDownLatch latch = client().countDownLatch(name);
        DistributedCountDownLatch other = openClient().countDownLatch(name);
        assertThat(asyncOrSkip(() -> latch.awaitAsync(Duration.ZERO)).get(10, java.util.concurrent.TimeUnit.SECONDS))
                .as("an open latch").isTrue();
        assertThat(latch.trySetCount(2)).isTrue();
        java.util.concurrent.CompletableFuture<Boolean> waiting = latch.awaitAsync(Duration.ofSeconds(30));
        assertThat(latch.awaitAsync(Duration.ofMillis(100)).get(10, java.util.concurrent.TimeUnit.SECONDS))
                .as("a timed asynchronous await gives up").isFalse();
        other.countDownAsync().get(10, java.util.concurrent.TimeUnit.SECONDS);
        assertThat(waiting).isNotDone();
        other.countDown();
        assertThat(waiting.get(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    }
}
