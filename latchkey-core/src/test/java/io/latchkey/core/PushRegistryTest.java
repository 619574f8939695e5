package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/** One server-side subscription per name, opened with the first subscriber and closed after the last, in order. */
class PushRegistryTest {

    /** A source that records what it was asked and completes each opening when told. */
    private static final class Recording implements PushRegistry.Source {
        final List<String> events = new ArrayList<>();
        final List<CompletableFuture<RemoteCountOps.Subscription>> openings = new ArrayList<>();

        @Override
        public synchronized CompletableFuture<RemoteCountOps.Subscription> open(String name) {
            events.add("open " + name);
            CompletableFuture<RemoteCountOps.Subscription> f = new CompletableFuture<>();
            openings.add(f);
            return f;
        }

        synchronized void confirm(int i, String name) {
            openings.get(i).complete(() -> {
                synchronized (this) {
                    events.add("close " + name);
                }
            });
        }

        synchronized List<String> events() {
            return List.copyOf(events);
        }
    }

    @Test
    void pushesReachTheNamesSubscribersWhoseFilterAcceptsThem() throws Exception {
        PushRegistry<String> registry = new PushRegistry<>();
        AtomicInteger all = new AtomicInteger();
        AtomicInteger onlyB = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        RemoteCountOps.Subscription a = registry.subscribe("n", all::incrementAndGet).get();
        registry.subscribe("n", "b"::equals, onlyB::incrementAndGet).get();
        registry.subscribe("m", () -> {
            other.incrementAndGet();
            throw new IllegalStateException("a failing callback does not stop the others");
        }).get();

        registry.fire("n", "a");
        registry.fire("n", "b");
        registry.fire("n", null); // anything may have changed: everyone looks
        assertThat(all).hasValue(3);
        assertThat(onlyB).hasValue(2);
        assertThat(other).hasValue(0);

        registry.fireAll();
        assertThat(all).hasValue(4);
        assertThat(other).hasValue(1);
        assertThat(registry.size()).isEqualTo(2);

        a.close();
        a.close(); // idempotent
        registry.fire("n", null);
        assertThat(all).hasValue(4);
        assertThat(onlyB).hasValue(4);
        assertThat(registry.hasSubscribers("n")).isTrue();
        registry.fire("nobody", null);
    }

    @Test
    void oneOpeningPerNameClosedAfterItsLastSubscriber() throws Exception {
        Recording source = new Recording();
        PushRegistry<String> registry = new PushRegistry<>(source);
        CompletableFuture<RemoteCountOps.Subscription> first = registry.subscribe("n", () -> { });
        CompletableFuture<RemoteCountOps.Subscription> second = registry.subscribe("n", () -> { });
        assertThat(first).isNotDone();
        assertThat(source.events()).containsExactly("open n");

        // both leave before the server confirmed: the closing waits for the opening
        first.thenAccept(RemoteCountOps.Subscription::close);
        second.thenAccept(RemoteCountOps.Subscription::close);
        source.confirm(0, "n");
        assertThat(source.events()).containsExactly("open n", "close n");
        assertThat(registry.hasSubscribers("n")).isFalse();

        assertThat(first.get()).isNotSameAs(second.get());
    }

    @Test
    void aNameReopenedWhileItsClosingRunsOpensOnlyAfterThatClosing() throws Exception {
        List<String> events = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch closing = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch finishClose = new java.util.concurrent.CountDownLatch(1);
        PushRegistry<String> registry = new PushRegistry<>(name -> {
            events.add("open");
            return CompletableFuture.completedFuture(() -> {
                closing.countDown();
                try {
                    finishClose.await(5, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                events.add("close");
            });
        });
        RemoteCountOps.Subscription first = registry.subscribe("n", () -> { }).get();
        Thread leaving = new Thread(first::close, "push-registry-test-leaving");
        leaving.start();
        assertThat(closing.await(5, TimeUnit.SECONDS)).isTrue();
        CompletableFuture<RemoteCountOps.Subscription> again = registry.subscribe("n", () -> { });
        assertThat(again).isNotDone();
        assertThat(events).containsExactly("open");
        finishClose.countDown();
        leaving.join(5_000);
        assertThat(again.get(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(events).containsExactly("open", "close", "open");
    }

    @Test
    void aFailedOpeningFailsItsSubscribersAndTheNextOneOpensAfresh() throws Exception {
        Recording source = new Recording();
        PushRegistry<String> registry = new PushRegistry<>(source);
        CompletableFuture<RemoteCountOps.Subscription> failed = registry.subscribe("n", () -> { });
        source.openings.get(0).completeExceptionally(new LockUnavailableException("refused"));
        assertThatThrownBy(failed::get).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(LockUnavailableException.class);
        assertThat(registry.size()).isZero();

        CompletableFuture<RemoteCountOps.Subscription> next = registry.subscribe("n", () -> { });
        source.confirm(1, "n");
        assertThat(next).isCompleted();
        assertThat(source.events()).containsExactly("open n", "open n");
    }

    @Test
    void aNameLingersAfterItsLastSubscriberAndIsTakenAgainWithoutANewOpening() throws Exception {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        try {
            Recording source = new Recording();
            PushRegistry<String> registry = new PushRegistry<>(source, MaintenanceScheduler.of(timer), 200, 1);
            CompletableFuture<RemoteCountOps.Subscription> a = registry.subscribe("a", () -> { });
            CompletableFuture<RemoteCountOps.Subscription> b = registry.subscribe("b", () -> { });
            source.confirm(0, "a");
            source.confirm(1, "b");
            a.get().close();
            b.get().close(); // beyond the one lingering name: closed at once
            assertThat(source.events()).containsExactly("open a", "open b", "close b");
            assertThat(registry.size()).isZero();

            registry.subscribe("a", () -> { }).get(1, TimeUnit.SECONDS).close(); // taken again: no new opening
            assertThat(source.events()).containsExactly("open a", "open b", "close b");
            Awaitility.await().atMost(5, TimeUnit.SECONDS)
                    .until(() -> source.events().equals(List.of("open a", "open b", "close b", "close a")));
        } finally {
            timer.shutdownNow();
        }
    }

    @Test
    void closeEndsEveryNameAndRefusesNewSubscribers() throws Exception {
        Recording source = new Recording();
        PushRegistry<String> registry = new PushRegistry<>(source);
        AtomicInteger told = new AtomicInteger();
        CompletableFuture<RemoteCountOps.Subscription> s = registry.subscribe("n", told::incrementAndGet);
        source.confirm(0, "n");
        registry.close();
        registry.close();
        assertThat(source.events()).containsExactly("open n", "close n");
        registry.fireAll();
        assertThat(told).hasValue(0);
        s.get().close();
        assertThatThrownBy(() -> registry.subscribe("n", () -> { }).get()).hasCauseInstanceOf(
                LockUnavailableException.class).hasMessageContaining("'n'");
    }
}
