package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockEventListener;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The listener's view of one acquire ({@link LockEventListener#waitStarted}, {@link LockEventListener.AcquireWait}),
 * its backend ({@link LockEventListener#forBackend}) and the reason of a loss.
 */
class AcquireWaitEventsTest {

    private final List<String> events = new CopyOnWriteArrayList<>();

    private final LockEventListener listener = new LockEventListener() {
        @Override
        public LockEventListener forBackend(String backend) {
            events.add("backend " + backend);
            return this;
        }

        @Override
        public AcquireWait waitStarted(String lockName) {
            String thread = Thread.currentThread().getName();
            events.add("start " + lockName + " on " + thread);
            return new AcquireWait() {
                @Override
                public void acquired(long fencingToken, Duration waited) {
                    events.add("acquired " + lockName + " token " + fencingToken);
                }

                @Override
                public void timedOut(Duration waited) {
                    events.add("timedOut " + lockName + " after " + (waited.toMillis() >= 40 ? ">=40ms" : waited));
                }

                @Override
                public void failed(Throwable cause, Duration waited) {
                    events.add("failed " + lockName + " " + cause.getClass().getSimpleName());
                }
            };
        }

        @Override
        public void lost(String lockName, String reason) {
            events.add("lost " + lockName + ": " + reason);
        }
    };

    @Test
    void everyAcquireThatAsksTheBackendIsToldHowItEnded() throws Exception {
        String uri = "mem://acquire-wait-" + UUID.randomUUID();
        ClientOptions options = ClientOptions.builder().eventListener(listener).build();
        try (LockClient a = LockClient.connect(uri, options); LockClient b = LockClient.connect(uri, options)) {
            assertThat(events).containsExactly("backend mem", "backend mem");
            events.clear();
            // the end is told when the acquire's future completes, which may be just after the caller resumed
            LockLease lease = a.lock("x").acquire();
            awaitEvents(2);
            String caller = Thread.currentThread().getName();
            assertThat(b.lock("x").tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
            awaitEvents(4);
            CompletableFuture<LockLease> cancelled = b.lock("x").acquireAsync();
            cancelled.cancel(true);
            awaitEvents(6);
            lease.release();
            a.lock("x").lock();
            a.lock("x").lock(); // a re-entry asks nothing
            a.lock("x").unlock();
            a.lock("x").unlock();
            awaitEvents(8);
            LockLease shortLease = a.lock("y").acquire(Duration.ofMillis(50));
            await().atMost(Duration.ofSeconds(5)).until(() -> !shortLease.isValid());
            awaitEvents(11);
            assertThat(events).containsExactly(
                    "start x on " + caller, "acquired x token " + lease.fencingToken(),
                    "start x on " + caller, "timedOut x after >=40ms",
                    "start x on " + caller, "failed x CancellationException",
                    "start x on " + caller, events.get(7),
                    "start y on " + caller, events.get(9),
                    "lost y: its fixed lease of 50 ms ran out");
            assertThat(events.get(7)).startsWith("acquired x token ");
            assertThat(events.get(9)).startsWith("acquired y token ");
        }
    }

    private void awaitEvents(int count) {
        await().atMost(Duration.ofSeconds(5)).until(() -> events.size() >= count);
    }

    @Test
    void theDefaultsChangeNothingForAnOlderListener() {
        List<String> lost = new CopyOnWriteArrayList<>();
        LockEventListener older = new LockEventListener() {
            @Override
            public void lost(String lockName) {
                lost.add(lockName);
            }
        };
        assertThat(older.forBackend("redis")).isSameAs(older);
        assertThat(older.waitStarted("x")).isNull();
        older.lost("x", "renewal refused");
        assertThat(lost).containsExactly("x");
    }
}
