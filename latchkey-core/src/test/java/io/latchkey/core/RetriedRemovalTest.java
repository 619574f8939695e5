package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The one retried removal of the backends: tries, pauses, what ends the retries. */
class RetriedRemovalTest {

    /** A timer that runs nothing by itself: the test runs the scheduled tasks and sees their delays. */
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private final List<Long> delays = new ArrayList<>();
    private final AtomicBoolean open = new AtomicBoolean(true);
    private final RetriedRemoval removals = new RetriedRemoval((task, delay) -> {
        delays.add(delay);
        tasks.add(task);
    }, open::get, 10, 40, LoggerFactory.getLogger(RetriedRemovalTest.class));

    @Test
    void retriesWithADoublingPauseUntilTheServerAnswers() {
        AtomicInteger tries = new AtomicInteger();
        CompletableFuture<Boolean> outcome = removals.now("delete of k", retry -> {
            tries.incrementAndGet();
            return retry < 4 ? CompletableFuture.failedFuture(new IOException("down"))
                    : CompletableFuture.completedFuture(true);
        }, e -> e instanceof IOException, false, null);
        while (!tasks.isEmpty()) {
            tasks.poll().run();
        }
        assertThat(outcome).isCompletedWithValue(true);
        assertThat(tries).hasValue(5);
        assertThat(delays).containsExactly(10L, 20L, 40L, 40L);
    }

    @Test
    void aFailureThatIsNotRetriedEndsTheRemoval() {
        AtomicInteger firstRetries = new AtomicInteger();
        CompletableFuture<Boolean> outcome = removals.now("delete of k",
                retry -> CompletableFuture.failedFuture(new IllegalStateException("no permission")),
                e -> e instanceof IOException, false, firstRetries::incrementAndGet);
        assertThat(outcome).isCompletedExceptionally();
        assertThat(tasks).isEmpty();
        assertThat(firstRetries).hasValue(0);
    }

    @Test
    void closingEndsTheRetriesWithTheClosedOutcome() {
        AtomicInteger firstRetries = new AtomicInteger();
        CompletableFuture<Boolean> outcome = removals.now("delete of k",
                retry -> CompletableFuture.failedFuture(new IOException("down")), e -> true, false,
                firstRetries::incrementAndGet);
        assertThat(firstRetries).hasValue(1);
        open.set(false);
        tasks.poll().run();
        assertThat(outcome).isCompletedWithValue(false);
        assertThat(tasks).isEmpty();
    }

    @Test
    void aTimerThatRejectsEndsTheRetries() {
        RetriedRemoval closing = new RetriedRemoval((task, delay) -> {
            throw new RejectedExecutionException("shut down");
        }, () -> true, 10, 10, LoggerFactory.getLogger(RetriedRemovalTest.class));
        CompletableFuture<String> outcome = closing.now("delete of k",
                retry -> CompletableFuture.failedFuture(new IOException("down")), e -> true, "closed", null);
        assertThat(outcome).isCompletedWithValue("closed");
    }

    @Test
    void aReleaseReportsItsFirstTryAndKeepsRetrying() {
        AtomicInteger tries = new AtomicInteger();
        CompletableFuture<Boolean> first = removals.release("release of permit p", () ->
                tries.incrementAndGet() < 3 ? CompletableFuture.failedFuture(new IOException("down"))
                        : CompletableFuture.completedFuture(true));
        assertThat(first).isCompletedExceptionally();
        while (!tasks.isEmpty()) {
            tasks.poll().run();
        }
        assertThat(tries).hasValue(3);
    }

    @Test
    void afterFailureWaitsBeforeItsFirstTry() {
        AtomicInteger tries = new AtomicInteger();
        CompletableFuture<Boolean> outcome = removals.afterFailure("release of key k", retry -> {
            tries.incrementAndGet();
            assertThat(retry).isEqualTo(1);
            return CompletableFuture.completedFuture(true);
        }, e -> true, null);
        assertThat(tries).hasValue(0);
        assertThat(delays).containsExactly(10L);
        tasks.poll().run();
        assertThat(outcome).isCompletedWithValue(true);
    }

    @Test
    void delaysMustBePositiveAndOrdered() {
        assertThatThrownBy(() -> new RetriedRemoval((t, d) -> { }, () -> true, 0, 10,
                LoggerFactory.getLogger(RetriedRemovalTest.class)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 <= first <= max");
        assertThatThrownBy(() -> new RetriedRemoval((t, d) -> { }, () -> true, 20, 10,
                LoggerFactory.getLogger(RetriedRemovalTest.class)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("20 and 10");
    }

    @Test
    void countKindsReadBackTheirLabels() {
        for (CountKind k : CountKind.values()) {
            assertThat(CountKind.ofLabel(k.label())).isSameAs(k);
        }
        assertThat(CountKind.ofLabel("lock")).isNull();
    }
}
