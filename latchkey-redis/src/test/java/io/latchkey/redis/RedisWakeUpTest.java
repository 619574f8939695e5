package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.acquireNow;
import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockLease;
import io.latchkey.core.Grant;
import io.latchkey.testing.RedisServerExtension;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How waiters are woken: by the unlock message, or at the holder's TTL when the message never comes. */
class RedisWakeUpTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient holderClient;
    private RedisLockClient waiterClient;

    @BeforeEach
    void connect() {
        // Timeouts are not under test here; 1,000 subscriptions at once on a loaded CI machine need room.
        io.latchkey.ClientOptions options = fastOptions().toBuilder().operationTimeout(Duration.ofSeconds(15)).build();
        holderClient = RedisLockClient.connect(redis.uri(), options);
        waiterClient = RedisLockClient.connect(redis.uri(), options);
    }

    @AfterEach
    void close() {
        holderClient.close();
        waiterClient.close();
    }

    @Test
    void waiterInAnotherClientWakesByPubSubWellUnderTheHoldersTtl() throws Exception {
        String name = uniqueName("wake");
        Grant held = acquireNow(holderClient.redisLockOps(), name, owner(), 30_000);
        CompletableFuture<LockLease> waiting = waiterClient.lock(name).acquireAsync();
        Awaitility.await().until(() -> waiterClient.subscriptions().size() == 1);
        Thread.sleep(50); // let the waiter arm after its post-subscribe attempt
        assertThat(waiting).isNotDone();

        long released = System.nanoTime();
        assertThat(holderClient.redisLockOps().release(held).get()).isTrue();
        LockLease got = waiting.get(5, TimeUnit.SECONDS);
        long wokeAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released);
        assertThat(got).isNotNull();
        assertThat(got.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(wokeAfterMs).as("woken by the unlock message, not the 30 s TTL").isLessThan(1_000L);
        Awaitility.await().until(() -> waiterClient.subscriptions().size() == 0);
    }

    @Test
    void lostUnlockMessageCostsAtMostTheHoldersTtl() throws Exception {
        String name = uniqueName("lost-message");
        acquireNow(holderClient.redisLockOps(), name, owner(), 700);
        long start = System.nanoTime();
        CompletableFuture<LockLease> waiting = waiterClient.lock(name).acquireAsync();
        Awaitility.await().until(() -> waiterClient.subscriptions().size() == 1);
        Thread.sleep(50);
        // The holder's key vanishes without a PUBLISH: no message will ever come.
        redis.execute("DEL", name);
        LockLease got = waiting.get(5, TimeUnit.SECONDS);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(got).isNotNull();
        assertThat(waitedMs).as("re-checked at the holder's remaining TTL").isBetween(500L, 1_500L);
    }

    @Test
    void aPubSubReconnectMakesWaitersRecheckAtOnce() throws Exception {
        String name = uniqueName("reconnect");
        acquireNow(holderClient.redisLockOps(), name, owner(), 30_000);
        CompletableFuture<LockLease> waiting = waiterClient.lock(name).acquireAsync();
        Awaitility.await().until(() -> waiterClient.subscriptions().size() == 1);
        Thread.sleep(50);
        // A release whose message the waiter missed (DEL publishes nothing), then the waiter's pub/sub
        // connection drops and comes back: as after any outage, it re-checks instead of waiting for the lease.
        redis.execute("DEL", name);
        long released = System.nanoTime();
        redis.execute("CLIENT", "KILL", "TYPE", "pubsub");
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - released))
                .as("re-checked after the reconnect, not at the 30 s lease").isLessThan(3_000L);
    }

    @Test
    void forceUnlockWakesWaiters() throws Exception {
        String name = uniqueName("force-wake");
        acquireNow(holderClient.redisLockOps(), name, owner(), 30_000);
        CompletableFuture<LockLease> waiting = waiterClient.lock(name).acquireAsync();
        Awaitility.await().until(() -> waiterClient.subscriptions().size() == 1);
        Thread.sleep(50);
        long forced = System.nanoTime();
        assertThat(holderClient.redisLockOps().forceUnlock(name).get()).isTrue();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).isNotNull();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - forced)).isLessThan(1_000L);
    }

    @Test
    void thousandPendingAcquiresParkNoThreads() throws Exception {
        int n = 1_000;
        List<String> names = new ArrayList<>();
        List<Grant> held = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String name = uniqueName("async-" + i);
            names.add(name);
            held.add(acquireNow(holderClient.redisLockOps(), name, owner(), 60_000));
        }
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        List<CompletableFuture<LockLease>> pending = new ArrayList<>();
        for (String name : names) {
            pending.add(waiterClient.lock(name).acquireAsync());
        }
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> waiterClient.subscriptions().size() == n);
        assertThat(pending).noneMatch(CompletableFuture::isDone);
        int threadsWhileWaiting = ManagementFactory.getThreadMXBean().getThreadCount();
        assertThat(threadsWhileWaiting - threadsBefore).as("threads added by 1,000 waiters").isLessThanOrEqualTo(4);

        for (Grant g : held) {
            holderClient.redisLockOps().release(g);
        }
        CompletableFuture.allOf(pending.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
        assertThat(pending).allSatisfy(f -> assertThat(f.join()).isNotNull());
        Awaitility.await().until(() -> waiterClient.subscriptions().size() == 0);
    }
}
