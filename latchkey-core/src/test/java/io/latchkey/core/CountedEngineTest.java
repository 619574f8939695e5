package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.internal.LockEngine;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The engine's local half of counted resources ({@link RemoteCountOps}) on mem, with every single attempt answered
 * 5 ms late: threads of one client send one attempt at a time per name, share one subscription, and leave no local
 * state behind; an interrupted waiter whose attempt succeeded gives its permits back.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class CountedEngineTest {

    /** Delays every answer of the wrapped ops by 5 ms and counts attempts in flight and open subscriptions. */
    static final class SlowCountOps implements RemoteCountOps {
        final RemoteCountOps delegate;
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger maxInFlight = new AtomicInteger();
        final AtomicInteger attempts = new AtomicInteger();
        final AtomicInteger subscriptions = new AtomicInteger();
        final AtomicInteger maxSubscriptions = new AtomicInteger();
        private final Executor later;

        SlowCountOps(RemoteCountOps delegate) {
            this(delegate, 5);
        }

        SlowCountOps(RemoteCountOps delegate, long delayMillis) {
            this.delegate = delegate;
            this.later = CompletableFuture.delayedExecutor(delayMillis, TimeUnit.MILLISECONDS);
        }

        private <T> CompletableFuture<T> attempt(CompletableFuture<T> f) {
            attempts.incrementAndGet();
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            return f.thenApplyAsync(r -> {
                inFlight.decrementAndGet();
                return r;
            }, later);
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
            return delegate.subscribe(name, changed).thenApply(s -> {
                maxSubscriptions.accumulateAndGet(subscriptions.incrementAndGet(), Math::max);
                return () -> {
                    subscriptions.decrementAndGet();
                    s.close();
                };
            });
        }

        @Override
        public CompletableFuture<Boolean> tryTake(String name, int permits) {
            return attempt(delegate.tryTake(name, permits));
        }

        @Override
        public CompletableFuture<Long> getCount(String name) {
            return attempt(delegate.getCount(name));
        }

        @Override
        public CompletableFuture<Void> give(String name, int permits) {
            return delegate.give(name, permits);
        }

        @Override
        public CompletableFuture<Integer> availablePermits(String name) {
            return delegate.availablePermits(name);
        }

        @Override
        public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
            return delegate.trySetPermits(name, permits);
        }

        @Override
        public CompletableFuture<Void> addPermits(String name, int delta) {
            return delegate.addPermits(name, delta);
        }

        @Override
        public CompletableFuture<Integer> drainPermits(String name) {
            return delegate.drainPermits(name);
        }

        @Override
        public CompletableFuture<Boolean> trySetCount(String name, long count) {
            return delegate.trySetCount(name, count);
        }

        @Override
        public CompletableFuture<Void> countDown(String name) {
            return delegate.countDown(name);
        }

        @Override
        public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis,
                                                                 boolean watchdog) {
            return attempt(delegate.tryLease(name, permitId, leaseMillis, watchdog));
        }

        @Override
        public CompletableFuture<Boolean> release(String name, String permitId) {
            return delegate.release(name, permitId);
        }

        @Override
        public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
            return delegate.updateLease(name, permitId, leaseMillis);
        }

        @Override
        public CompletableFuture<Set<io.latchkey.core.Grant>> renew(Collection<io.latchkey.core.Grant> grants) {
            return delegate.renew(grants);
        }
    }

    static final class SlowClient extends MemLockClient {
        private SlowCountOps semaphores;
        private SlowCountOps latches;
        private Recipes recipes;

        SlowClient(String server) {
            super(server, ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(1))
                    .operationTimeout(Duration.ofSeconds(2)).build(), TimeSource.SYSTEM);
        }

        @Override
        protected synchronized Recipes recipes() {
            if (recipes == null) {
                Recipes mem = super.recipes();
                semaphores = new SlowCountOps(mem.semaphore());
                latches = new SlowCountOps(mem.countDownLatch());
                recipes = mem.toBuilder().semaphore(semaphores).countDownLatch(latches).build();
            }
            return recipes;
        }

        LockEngine engineForTest() {
            return ((AbstractLockClient) this).engine();
        }
    }

    @Test
    void threadsOfOneClientSendOneAttemptAtATimeAndShareOneSubscription() throws Exception {
        String server = CountingMemClient.newServer();
        try (SlowClient client = new SlowClient(server); MemLockClient other = MemLockClient.create(server)) {
            DistributedSemaphore semaphore = client.semaphore("pool");
            other.semaphore("pool").trySetPermits(0);
            ExecutorService pool = Executors.newFixedThreadPool(10);
            try {
                List<Future<Boolean>> waiters = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    waiters.add(pool.submit(() -> semaphore.tryAcquire(1, Duration.ofSeconds(20))));
                }
                SlowCountOps ops = client.semaphores;
                await().atMost(Duration.ofSeconds(5)).until(() -> ops != null && ops.subscriptions.get() == 1);
                for (int i = 0; i < 10; i++) {
                    other.semaphore("pool").release();
                    Thread.sleep(20);
                }
                for (Future<Boolean> w : waiters) {
                    assertThat(w.get(10, TimeUnit.SECONDS)).isTrue();
                }
                assertThat(ops.maxInFlight.get()).as("attempts in flight at once").isEqualTo(1);
                assertThat(ops.maxSubscriptions.get()).as("subscriptions at once").isEqualTo(1);
                assertThat(ops.attempts.get()).as("no spinning: about one attempt per wake-up")
                        .isLessThan(60);
                await().atMost(Duration.ofSeconds(2)).until(() -> ops.subscriptions.get() == 0);
                assertThat(client.engineForTest().localStateCount()).as("nothing left once nobody waits").isZero();
                assertThat(other.semaphore("pool").availablePermits()).isZero();
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void anInterruptedWaiterWhoseAttemptWasGrantedGivesThePermitsBack() throws Exception {
        String server = CountingMemClient.newServer();
        try (SlowClient client = new SlowClient(server); MemLockClient other = MemLockClient.create(server)) {
            other.semaphore("s").trySetPermits(0);
            for (int round = 0; round < 20; round++) {
                CompletableFuture<Thread> thread = new CompletableFuture<>();
                CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
                    thread.complete(Thread.currentThread());
                    try {
                        client.semaphore("s").acquire(2);
                        return "acquired";
                    } catch (InterruptedException e) {
                        return e;
                    }
                });
                Thread.sleep(20);
                other.semaphore("s").release(2); // the attempt it wakes is in flight for 5 ms …
                Thread.sleep(round % 6);
                thread.get().interrupt(); // … and the interrupt races it
                Object o = outcome.get(5, TimeUnit.SECONDS);
                if (o instanceof InterruptedException) {
                    await().atMost(Duration.ofSeconds(2))
                            .until(() -> other.semaphore("s").availablePermits() == 2);
                } else {
                    client.semaphore("s").release(2);
                }
                assertThat(other.semaphore("s").drainPermits()).as("round %d: permits after %s", round, o)
                        .isEqualTo(2);
                Thread.interrupted();
            }
            assertThat(client.engineForTest().localStateCount()).isZero();
        }
    }

    @Test
    void latchWaitersOfOneClientShareOneLookAndOpenTogether() throws Exception {
        String server = CountingMemClient.newServer();
        try (SlowClient client = new SlowClient(server); MemLockClient other = MemLockClient.create(server)) {
            DistributedCountDownLatch latch = client.countDownLatch("gate");
            other.countDownLatch("gate").trySetCount(1);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<Boolean>> waiters = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    waiters.add(pool.submit(() -> latch.await(Duration.ofSeconds(20))));
                }
                Thread.sleep(200);
                other.countDownLatch("gate").countDown();
                for (Future<Boolean> w : waiters) {
                    assertThat(w.get(10, TimeUnit.SECONDS)).isTrue();
                }
                assertThat(client.latches.maxInFlight.get()).isEqualTo(1);
                assertThat(client.latches.maxSubscriptions.get()).isEqualTo(1);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** A backend that pushes nothing (subscriptions never fire) and answers at once: only the re-check wakes. */
    static final class DeafLatchClient extends MemLockClient {
        DeafLatchClient(String server) {
            super(server, ClientOptions.defaults(), TimeSource.SYSTEM);
        }

        @Override
        protected Recipes recipes() {
            Recipes recipes = super.recipes();
            RemoteCountOps mem = recipes.countDownLatch();
            return recipes.toBuilder().countDownLatch(new RemoteCountOps() {
                @Override
                public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
                    return CompletableFuture.completedFuture(() -> { });
                }

                @Override
                public long recheckMillis() {
                    return 20;
                }

                @Override
                public CompletableFuture<Long> getCount(String name) {
                    return mem.getCount(name);
                }
            }).build();
        }
    }

    @Test
    void withoutPushesTheRecheckKeepsLookingUntilTheLatchOpens() throws Exception {
        // An attempt that completes inside the re-check timer's own task used to find that timer "not done" and
        // arm no next re-check: the waiter of a backend without pushes (SQL but PostgreSQL) waited forever.
        String server = CountingMemClient.newServer();
        try (DeafLatchClient client = new DeafLatchClient(server); MemLockClient other = MemLockClient.create(server)) {
            other.countDownLatch("gate").trySetCount(1);
            CompletableFuture<Boolean> opened = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.countDownLatch("gate").await(Duration.ofSeconds(20));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
            Thread.sleep(300); // several re-checks that find the latch armed
            other.countDownLatch("gate").countDown();
            assertThat(opened.get(5, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void aShortWaitOnAFreeSemaphoreTakesItEvenWhenTheFirstLookIsSlowerThanTheWait() throws Exception {
        String server = CountingMemClient.newServer();
        try (MemLockClient client = new MemLockClient(server, ClientOptions.defaults(), TimeSource.SYSTEM) {
                    @Override
                    protected Recipes recipes() {
                        Recipes mem = super.recipes();
                        return mem.toBuilder() // a cold pool, a slow network
                                .semaphore(new SlowCountOps(mem.semaphore(), 150)).build();
                    }
                };
             MemLockClient other = MemLockClient.create(server)) {
            other.semaphore("s").trySetPermits(1);
            long start = System.nanoTime();
            assertThat(client.semaphore("s").tryAcquire(1, Duration.ofMillis(20)))
                    .as("a free permit, found by a look that answered after the 20 ms wait").isTrue();
            assertThat(other.semaphore("s").availablePermits()).isZero();
            assertThat(client.semaphore("s").tryAcquire(1, Duration.ofMillis(20)))
                    .as("none free: the first look's answer ends the wait").isFalse();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isLessThan(2_000);
            assertThat(client.semaphore("s").tryAcquireAsync(1, Duration.ofMillis(20)).get(5, TimeUnit.SECONDS))
                    .isFalse();
            client.semaphore("s").release();
            assertThat(client.semaphore("s").tryAcquireAsync(1, Duration.ofMillis(20)).get(5, TimeUnit.SECONDS))
                    .isTrue();
        }
    }

    @Test
    void aReleaseHandingOffToAWaiterWhoseAttemptIsOutReturnsOnceThatAttemptGaveBackWhatItTook() throws Exception {
        // A release hands its permit to the head waiter while that waiter's attempt is still out; the attempt takes a
        // second permit on the server, given back when its answer comes. The release used to return at once: every
        // acquire and release had returned, yet the semaphore showed a permit short for a while (seen under load on
        // etcd, SQL and ZooKeeper).
        String server = CountingMemClient.newServer();
        try (MemLockClient client = new MemLockClient(server, ClientOptions.defaults(), TimeSource.SYSTEM) {
                    @Override
                    protected Recipes recipes() {
                        Recipes mem = super.recipes();
                        return mem.toBuilder().semaphore(new SlowCountOps(mem.semaphore(), 300)).build();
                    }
                };
             MemLockClient other = MemLockClient.create(server)) {
            for (boolean async : new boolean[] {false, true}) {
                String name = "s-" + async;
                DistributedSemaphore semaphore = client.semaphore(name);
                other.semaphore(name).trySetPermits(2);
                assertThat(other.semaphore(name).tryAcquire()).isTrue();
                semaphore.acquire(); // the last free permit: none left on the server
                CompletableFuture<Void> waiter = semaphore.acquireAsync(1);
                Thread.sleep(400); // its first look found none; it waits for a change
                other.semaphore(name).release(); // the change: an attempt for the waiter is out (answered in 300 ms)
                Thread.sleep(50);
                CompletableFuture<Void> released = async ? semaphore.releaseAsync(1) // while that attempt is out
                        : CompletableFuture.runAsync(semaphore::release);
                waiter.get(5, TimeUnit.SECONDS); // handed off
                released.get(5, TimeUnit.SECONDS);
                semaphore.release();
                assertThat(other.semaphore(name).availablePermits())
                        .as("async %s: every acquire was released: both permits are free, none in transit", async)
                        .isEqualTo(2);
            }
        }
    }

    /** A client whose semaphore attempts take effect at once but answer 300 ms late. */
    private static MemLockClient slowAnswers(String server) {
        return new MemLockClient(server, ClientOptions.defaults(), TimeSource.SYSTEM) {
            @Override
            protected Recipes recipes() {
                Recipes mem = super.recipes();
                return mem.toBuilder().semaphore(new SlowCountOps(mem.semaphore(), 300)).build();
            }
        };
    }

    @Test
    void aWaitThatRunsOutWhileAnAttemptIsOutReturnsThatAttemptsAnswer() throws Exception {
        String server = CountingMemClient.newServer();
        try (MemLockClient client = slowAnswers(server); MemLockClient other = MemLockClient.create(server)) {
            other.semaphore("s").trySetPermits(1);
            assertThat(other.semaphore("s").tryAcquire()).isTrue();
            CompletableFuture<Boolean> timed = CompletableFuture.supplyAsync(() -> {
                try {
                    return client.semaphore("s").tryAcquire(1, Duration.ofMillis(500));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            Thread.sleep(400); // the first look found none
            other.semaphore("s").release(); // an attempt is out until about 700 ms, past the deadline
            boolean acquired = timed.get(5, TimeUnit.SECONDS);
            assertThat(other.semaphore("s").availablePermits()).as("acquired: %s", acquired)
                    .isEqualTo(acquired ? 0 : 1);
            assertThat(acquired).as("the attempt out at the deadline took the permit: its answer decides").isTrue();
        }
    }

    @Test
    void anInterruptWhileAnAttemptIsOutThrowsOnlyOnceWhatThatAttemptTookIsBack() throws Exception {
        String server = CountingMemClient.newServer();
        try (MemLockClient client = slowAnswers(server); MemLockClient other = MemLockClient.create(server)) {
            other.semaphore("s").trySetPermits(1);
            assertThat(other.semaphore("s").tryAcquire()).isTrue();
            CompletableFuture<Thread> thread = new CompletableFuture<>();
            CompletableFuture<Object> outcome = CompletableFuture.supplyAsync(() -> {
                thread.complete(Thread.currentThread());
                try {
                    client.semaphore("s").acquire();
                    return "acquired";
                } catch (InterruptedException e) {
                    return e;
                }
            });
            Thread.sleep(400); // the first look found none
            other.semaphore("s").release(); // an attempt is out for 300 ms and takes the permit
            Thread.sleep(50);
            thread.get().interrupt();
            assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
            assertThat(other.semaphore("s").availablePermits()).as("the interrupted acquire took nothing").isEqualTo(1);
        }
    }

    @Test
    void twoSingleLooksAtASemaphoreWithTwoFreePermitsBothTakeOne() throws Exception {
        String server = CountingMemClient.newServer();
        try (MemLockClient client = new MemLockClient(server, ClientOptions.defaults(), TimeSource.SYSTEM) {
                    @Override
                    protected Recipes recipes() {
                        Recipes mem = super.recipes();
                        return mem.toBuilder().semaphore(new SlowCountOps(mem.semaphore(), 100)).build();
                    }
                };
             MemLockClient other = MemLockClient.create(server)) {
            other.semaphore("s").trySetPermits(2);
            DistributedSemaphore semaphore = client.semaphore("s");
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
                List<Future<Boolean>> tries = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    tries.add(pool.submit(() -> {
                        go.await();
                        return semaphore.tryAcquire();
                    }));
                }
                go.countDown();
                for (Future<Boolean> f : tries) {
                    assertThat(f.get(5, TimeUnit.SECONDS))
                            .as("a single look behind another single look still looks (java.util.concurrent.Semaphore)")
                            .isTrue();
                }
                assertThat(other.semaphore("s").availablePermits()).isZero();
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** A client whose semaphore and permit attempts take effect at once but answer {@code answerMillis} late. */
    private static MemLockClient lateAnswers(String server, Duration operationTimeout, long answerMillis) {
        return new MemLockClient(server, ClientOptions.builder().operationTimeout(operationTimeout).build(),
                TimeSource.SYSTEM) {
            @Override
            protected Recipes recipes() {
                Recipes mem = super.recipes();
                return mem.toBuilder().semaphore(new SlowCountOps(mem.semaphore(), answerMillis))
                        .permitExpirableSemaphore(new SlowCountOps(mem.permitExpirableSemaphore(), answerMillis))
                        .build();
            }
        };
    }

    @Test
    void aTimedCountedWaitWhoseAttemptDoesNotAnswerEndsByTheBackstopAndWhatItTookGoesBack() throws Exception {
        String server = CountingMemClient.newServer();
        // the attempt takes the permit at once but answers after 1.5 s: past the deadline plus the operation timeout
        try (MemLockClient client = lateAnswers(server, Duration.ofMillis(200), 1500);
             MemLockClient other = MemLockClient.create(server)) {
            other.semaphore("s").trySetPermits(1);
            long start = System.nanoTime();
            assertThatThrownBy(() -> client.semaphore("s").tryAcquire(1, Duration.ofMillis(100)))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("got no answer");
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
                    .as("ends by the deadline plus the operation timeout, not with the late answer").isLessThan(1200);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    other.semaphore("s").availablePermits()).as("the late answer's permit is given back").isEqualTo(1));

            other.permitExpirableSemaphore("p").trySetPermits(1);
            CompletableFuture<Optional<String>> leased = client.permitExpirableSemaphore("p")
                    .tryAcquireAsync(Duration.ofMillis(100), Duration.ofSeconds(30));
            assertThatThrownBy(() -> leased.get(1200, TimeUnit.MILLISECONDS))
                    .hasCauseInstanceOf(LockUnavailableException.class);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    other.permitExpirableSemaphore("p").availablePermits()).as("the late lease is released")
                    .isEqualTo(1));
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(
                    ((AbstractLockClient) client).engine().localStateCount()).isZero());
        }
    }

    @Test
    void aCountedNameStateIsKeptForReuseOnceIdle() throws Exception {
        try (MemLockClient client = MemLockClient.create(CountingMemClient.newServer())) {
            client.lock("starts-the-watchdog").lock(); // idle states are kept only while the watchdog sweeps them
            DistributedSemaphore semaphore = client.semaphore("s");
            semaphore.trySetPermits(1);
            LockEngine engine = ((AbstractLockClient) client).engine();
            for (int i = 0; i < 3; i++) {
                assertThat(semaphore.tryAcquire(1, Duration.ofSeconds(1))).isTrue();
                semaphore.release();
                assertThat(engine.localStateCount()).as("only the held lock").isEqualTo(1);
                assertThat(engine.nameStateCount()).as("the idle state is kept beside the held lock's").isEqualTo(2);
            }
        }
    }
}
