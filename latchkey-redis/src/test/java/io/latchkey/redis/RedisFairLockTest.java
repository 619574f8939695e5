package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.testing.RedisServerExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redis specifics of the fair lock: arrival order across clients, crashed waiters leave the queue. */
class RedisFairLockTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient holder;
    private RedisLockClient a;
    private RedisLockClient b;
    private final List<Thread> threads = new ArrayList<>();

    @BeforeEach
    void connect() {
        // Holds must outlast the test's waits even when a loaded machine stalls renewals for a while; this class
        // tests order and wake-ups, not leases.
        holder = RedisLockClient.connect(redis.uri(), fastOptions().toBuilder()
                .watchdogTimeout(java.time.Duration.ofSeconds(10)).build());
        io.latchkey.ClientOptions waiters = fastOptions().toBuilder()
                .watchdogTimeout(java.time.Duration.ofSeconds(3)).build();
        a = RedisLockClient.connect(redis.uri(), waiters);
        b = RedisLockClient.connect(redis.uri(), waiters);
    }

    @AfterEach
    void close() throws InterruptedException {
        threads.forEach(Thread::interrupt);
        for (Thread t : threads) {
            t.join(5_000);
        }
        holder.close();
        a.close();
        b.close();
    }

    @Test
    void twentyWaitersOfTwoClientsAreServedInArrivalOrder() throws Exception {
        String name = uniqueName("fair-order");
        DistributedLock held = holder.fairLock(name);
        held.lock();
        ConcurrentLinkedQueue<Integer> order = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            int id = i;
            DistributedLock lock = (i % 2 == 0 ? a : b).fairLock(name);
            CompletableFuture<Void> finished = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    lock.lock();
                    try {
                        order.add(id);
                        Thread.sleep(5);
                    } finally {
                        lock.unlock();
                    }
                    finished.complete(null);
                } catch (Throwable e) {
                    finished.completeExceptionally(e);
                }
            }, "fair-waiter-" + i);
            t.setDaemon(true);
            threads.add(t);
            done.add(finished);
            t.start();
            // every waiter is queued at the server on its own: the next starts once this one is in line
            RedisFairLockOps.Keys keys = new RedisFairLockOps.Keys("", name, false);
            long queued = i + 1;
            Awaitility.await().until(() -> ((Number) redis.execute("ZCARD", keys.queue)).longValue() == queued);
        }
        held.unlock();
        CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        assertThat(order).containsExactlyElementsOf(
                java.util.stream.IntStream.range(0, 20).boxed().toList());
    }

    @Test
    void theNamesChannelIsSubscribedWhileAWaiterWaitsThenGoes() throws Exception {
        String name = uniqueName("fair-channel");
        DistributedLock held = holder.fairLock(name);
        DistributedLock lock = a.fairLock(name);
        held.lock();
        CompletableFuture<Boolean> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                boolean got = lock.tryLock(10, TimeUnit.SECONDS);
                lock.unlock();
                result.complete(got);
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "fair-channel");
        t.setDaemon(true);
        threads.add(t);
        t.start();
        Awaitility.await().until(() -> a.subscriptions().size() == 1);
        held.unlock();
        assertThat(result.get(10, TimeUnit.SECONDS)).isTrue();
        Awaitility.await().until(() -> a.subscriptions().size() == 0);
    }

    @Test
    void aReleaseSendsOnlyTheNextLocalWaiterToTheServer() throws Exception {
        String name = uniqueName("fair-one-client");
        int waiters = 8;
        int cycles = 5;
        long before = evalshaCalls();
        List<Thread> workers = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        for (int i = 0; i < waiters; i++) {
            Thread t = new Thread(() -> {
                DistributedLock lock = a.fairLock(name);
                try {
                    for (int c = 0; c < cycles; c++) {
                        if (!lock.tryLock(20, TimeUnit.SECONDS)) {
                            throw new AssertionError("no lock within 20 s");
                        }
                        lock.unlock();
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            }, "fair-one-client-" + i);
            t.setDaemon(true);
            threads.add(t);
            workers.add(t);
        }
        workers.forEach(Thread::start);
        for (Thread t : workers) {
            t.join(60_000);
        }
        assertThat(errors).isEmpty();
        double perCycle = (evalshaCalls() - before) / (double) (waiters * cycles);
        // attempt + release per cycle, plus a few re-checks and first-come queueing; every waiter of the client
        // asking at every release would be about one round trip per waiter
        assertThat(perCycle).as("EVALSHA per lock+unlock cycle of %d threads of one client", waiters).isLessThan(5.0);
        Awaitility.await().until(() -> a.synchronizers().fairOps().heads().size() == 0);
    }

    private static long evalshaCalls() {
        String stats = (String) redis.execute("INFO", "commandstats");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("cmdstat_evalsha:calls=(\\d+)").matcher(stats);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    @Test
    void theNextInLineInTheReleasingClientIsWokenWithoutAMessage() throws Exception {
        String name = uniqueName("fair-local-wake");
        RedisFairLockOps.Keys keys = new RedisFairLockOps.Keys("", name, false);
        io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(redis.uri());
        try (var pubSub = raw.connectPubSub()) {
            ConcurrentLinkedQueue<String> messages = new ConcurrentLinkedQueue<>();
            pubSub.addListener(new io.lettuce.core.pubsub.RedisPubSubAdapter<String, String>() {
                @Override
                public void message(String channel, String message) {
                    messages.add(message);
                }
            });
            pubSub.sync().subscribe(keys.channel);
            // holder's heartbeat is 5 s: without the local wake the waiter would re-check only after 1.7 s
            DistributedLock held = holder.fairLock(name);
            held.lock();
            CompletableFuture<Long> acquiredAt = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                DistributedLock lock = holder.fairLock(name);
                lock.lock();
                acquiredAt.complete(System.nanoTime());
                lock.unlock();
            }, "fair-local-waiter");
            t.setDaemon(true);
            threads.add(t);
            t.start();
            Awaitility.await().until(() -> ((Number) redis.execute("ZCARD", keys.queue)).longValue() == 1);
            long released = System.nanoTime();
            held.unlock();
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - released);
            assertThat(waitedMs).as("ms from the release to the local waiter's grant").isLessThan(1_000);
            assertThat(messages).as("nothing published for a waiter of the releasing client").isEmpty();
        } finally {
            raw.shutdown();
        }
    }

    @Test
    void aReleaseNamesTheHeadAloneSoOnlyItsClientLooksAgain() throws Exception {
        String name = uniqueName("fair-head");
        RedisFairLockOps.Keys keys = new RedisFairLockOps.Keys("", name, false);
        io.lettuce.core.RedisClient raw = io.lettuce.core.RedisClient.create(redis.uri());
        try (var pubSub = raw.connectPubSub()) {
            ConcurrentLinkedQueue<String> messages = new ConcurrentLinkedQueue<>();
            pubSub.addListener(new io.lettuce.core.pubsub.RedisPubSubAdapter<String, String>() {
                @Override
                public void message(String channel, String message) {
                    messages.add(message);
                }
            });
            pubSub.sync().subscribe(keys.channel);
            DistributedLock held = holder.fairLock(name);
            held.lock();
            List<CompletableFuture<Boolean>> waiters = new ArrayList<>();
            for (RedisLockClient c : List.of(a, b)) {
                DistributedLock lock = c.fairLock(name);
                waiters.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        boolean got = lock.tryLock(10, TimeUnit.SECONDS);
                        Thread.sleep(300);
                        lock.unlock();
                        return got;
                    } catch (InterruptedException e) {
                        return false;
                    }
                }));
                Thread.sleep(150);
            }
            assertThat(((Number) redis.execute("ZCARD", keys.queue)).longValue()).isEqualTo(2);
            messages.clear();
            held.unlock();
            Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> String.valueOf(
                    redis.execute("GET", keys.owner)).startsWith(a.clientId()));
            // while a holds the lock, b (second in line) has not been woken: every message named a's waiter
            assertThat(messages).isNotEmpty().allMatch(head -> head.startsWith(a.clientId() + ":"));
            assertThat(waiters.get(0).get(5, TimeUnit.SECONDS)).isTrue();
            assertThat(waiters.get(1).get(5, TimeUnit.SECONDS)).isTrue();
            assertThat(messages).allMatch(head -> head.startsWith(a.clientId() + ":")
                    || head.startsWith(b.clientId() + ":"));
        } finally {
            raw.shutdown();
        }
    }

    @Test
    void aKilledWaiterProcessDelaysTheQueueAtMostByItsHeartbeat() throws Exception {
        String name = uniqueName("fair-killed");
        RedisFairLockOps.Keys keys = new RedisFairLockOps.Keys("", name, false);
        DistributedLock held = holder.fairLock(name);
        held.lock();
        long heartbeat = 2_000; // the child's watchdog timeout (under the 5 s cap)
        try (io.latchkey.tck.ChildJvm child = io.latchkey.tck.ChildJvm.start("fair-waiter", FairWaiterMain.class,
                redis.uri(), name, Long.toString(heartbeat))) {
            String childId = child.awaitLine("WAITING ", java.time.Duration.ofSeconds(30)).substring(8);
            Awaitility.await().atMost(java.time.Duration.ofSeconds(20)).until(() ->
                    ((Number) redis.execute("ZCARD", keys.queue)).longValue() == 1);
            CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
                DistributedLock lock = b.fairLock(name);
                try {
                    if (!lock.tryLock(20, TimeUnit.SECONDS)) {
                        return -1L;
                    }
                } catch (InterruptedException e) {
                    return -2L;
                }
                lock.unlock();
                return System.nanoTime();
            });
            Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() ->
                    ((Number) redis.execute("ZCARD", keys.queue)).longValue() == 2);
            List<?> queue = (List<?>) redis.execute("ZRANGE", keys.queue, "0", "-1");
            assertThat(String.valueOf(queue.get(0))).as("the child queued first").startsWith(childId);
            child.kill(); // SIGKILL: no withdrawal, no more heartbeats
            long released = System.nanoTime();
            held.unlock();
            long gotAt = waited.get(20, TimeUnit.SECONDS);
            assertThat(gotAt).as("the live waiter got the lock behind a killed one").isPositive();
            long delayMs = TimeUnit.NANOSECONDS.toMillis(gotAt - released);
            assertThat(delayMs).as("ms behind a killed waiter (heartbeat %d ms)", heartbeat)
                    .isLessThan(heartbeat + 5_000);
            assertThat(child.printed("LOCKED")).isFalse();
        }
    }

    @Test
    void aCrashedWaiterDelaysTheQueueAtMostByItsHeartbeat() throws Exception {
        String name = uniqueName("fair-crash");
        DistributedLock held = holder.fairLock(name);
        held.lock();
        // A waiter whose process died: queued by the acquire script, then never heard of again.
        RedisFairLockOps.Keys keys = new RedisFairLockOps.Keys("", name, false);
        long heartbeat = a.synchronizers().fairOps().heartbeatMillis();
        List<String> eval = new ArrayList<>(List.of("EVAL", FairLockScripts.ACQUIRE.source,
                Integer.toString(keys.acquire.length)));
        eval.addAll(List.of(keys.acquire));
        eval.addAll(List.of("dead-client:1", "30000", "1", Long.toString(heartbeat), keys.channel));
        redis.execute(eval.toArray(new String[0]));
        assertThat(((Number) redis.execute("ZCARD", keys.queue)).longValue()).isEqualTo(1);

        CompletableFuture<Long> waited = CompletableFuture.supplyAsync(() -> {
            DistributedLock lock = b.fairLock(name);
            try {
                if (!lock.tryLock(10, TimeUnit.SECONDS)) {
                    return -1L;
                }
            } catch (InterruptedException e) {
                return -2L;
            }
            lock.unlock();
            return System.nanoTime();
        });
        Thread.sleep(200);
        long released = System.nanoTime();
        held.unlock();
        long gotAt = waited.get(10, TimeUnit.SECONDS);
        assertThat(gotAt).as("the live waiter got the lock").isPositive();
        long delayMs = TimeUnit.NANOSECONDS.toMillis(gotAt - released);
        assertThat(delayMs).as("ms behind a dead waiter (heartbeat %d ms)", heartbeat)
                .isLessThan(heartbeat + 2_000);
        assertThat(((Number) redis.execute("EXISTS", keys.queue)).longValue()).isZero();
    }
}
