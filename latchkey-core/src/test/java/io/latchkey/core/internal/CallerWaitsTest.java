package io.latchkey.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.core.TimeSource;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The caller's side of a wait ({@link CallerWaits}), shared by locks and counted resources: what a give-up does,
 * and that whatever raced it is given back.
 */
class CallerWaitsTest {

    private final LockEngine engine = new LockEngine("test", "c1", ClientOptions.defaults(), TimeSource.SYSTEM);
    private final List<Object> givenBack = new CopyOnWriteArrayList<>();
    private final AtomicInteger givenUp = new AtomicInteger();

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void asyncMapsTheResult() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        CompletableFuture<Integer> out = CallerWaits.async(result, String::length, givenUp::incrementAndGet,
                givenBack::add);
        result.complete("grant");
        assertThat(out.get(1, TimeUnit.SECONDS)).isEqualTo(5);
        assertThat(givenBack).isEmpty();
        assertThat(givenUp).hasValue(0);
    }

    @Test
    void asyncCancelGivesUpAndGivesBackALateResult() {
        CompletableFuture<String> result = new CompletableFuture<>();
        CompletableFuture<Integer> out = CallerWaits.async(result, String::length, givenUp::incrementAndGet,
                givenBack::add);
        out.cancel(false);
        assertThat(givenUp).hasValue(1);
        result.complete("late grant"); // the attempt that was out answers after the cancel
        assertThat(givenBack).containsExactly("late grant");
    }

    @Test
    void asyncCancelWithNothingTakenGivesNothingBack() {
        CompletableFuture<String> result = new CompletableFuture<>();
        CompletableFuture<Integer> out = CallerWaits.async(result, String::length, givenUp::incrementAndGet,
                givenBack::add);
        out.cancel(false);
        result.complete(null); // the waiter left the queue: nothing was taken
        assertThat(givenBack).isEmpty();
    }

    @Test
    void asyncMappingFailureGivesTheResultBack() {
        CompletableFuture<String> result = new CompletableFuture<>();
        IllegalStateException boom = new IllegalStateException("boom");
        CompletableFuture<Integer> out = CallerWaits.async(result, r -> {
            throw boom;
        }, givenUp::incrementAndGet, givenBack::add);
        result.complete("grant");
        assertThatThrownBy(() -> out.get(1, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class).hasCause(boom);
        assertThat(givenBack).containsExactly("grant");
    }

    @Test
    void asyncFailureReachesTheCallerUnwrapped() {
        CompletableFuture<String> result = new CompletableFuture<>();
        CompletableFuture<Integer> out = CallerWaits.async(result, String::length, givenUp::incrementAndGet,
                givenBack::add);
        IllegalStateException failure = new IllegalStateException("backend down");
        result.completeExceptionally(new java.util.concurrent.CompletionException(failure));
        assertThatThrownBy(() -> out.get(1, TimeUnit.SECONDS)).hasCause(failure);
    }

    @Test
    void interruptGivesUpGivesBackWhatRacedItAndClearsTheFlag() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        CountDownLatch waiting = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            waiting.countDown();
            try {
                CallerWaits.await(engine, result, "n", true, () -> {
                    givenUp.incrementAndGet();
                    result.complete("grant that raced the interrupt");
                }, r -> {
                    givenBack.add(r);
                    return CompletableFuture.completedFuture(null);
                });
            } catch (Throwable e) {
                thrown.set(e);
            }
            flagAfter.set(Thread.currentThread().isInterrupted());
        }, "caller-waits-test");
        t.start();
        waiting.await();
        awaitWaiting(t);
        t.interrupt();
        t.join(5_000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        assertThat(givenUp).hasValue(1);
        assertThat(givenBack).containsExactly("grant that raced the interrupt");
        assertThat(flagAfter.get()).isFalse();
    }

    @Test
    void uninterruptibleWaitKeepsWaitingAndKeepsTheInterrupt() throws Exception {
        CompletableFuture<String> result = new CompletableFuture<>();
        AtomicReference<String> got = new AtomicReference<>();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        Thread t = new Thread(() -> {
            try {
                got.set(CallerWaits.await(engine, result, "n", false, givenUp::incrementAndGet, r -> {
                    givenBack.add(r);
                    return CompletableFuture.completedFuture(null);
                }));
            } catch (InterruptedException e) {
                got.set("interrupted");
            }
            flagAfter.set(Thread.interrupted());
        }, "caller-waits-test");
        t.start();
        awaitWaiting(t);
        t.interrupt();
        awaitWaiting(t);
        result.complete("grant");
        t.join(5_000);
        assertThat(got.get()).isEqualTo("grant");
        assertThat(flagAfter.get()).isTrue();
        assertThat(givenUp).hasValue(0);
        assertThat(givenBack).isEmpty();
    }

    private static void awaitWaiting(Thread t) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (t.getState() != Thread.State.WAITING && System.nanoTime() < end) {
            Thread.sleep(1);
        }
    }
}
