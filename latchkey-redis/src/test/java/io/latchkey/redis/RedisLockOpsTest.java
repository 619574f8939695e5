package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.acquireNow;
import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.request;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The remote operations against a real redis-server, below the engine. */
class RedisLockOpsTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient client;
    private RedisLockOps ops;

    @BeforeEach
    void connect() {
        client = RedisLockClient.connect(redis.uri(), fastOptions());
        ops = client.redisLockOps();
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void acquireWritesRedissonLayoutAndIssuesIncreasingTokens() throws Exception {
        String name = uniqueName("layout");
        String owner = owner();
        Grant first = acquireNow(ops, name, owner, 10_000);
        assertThat(first).isNotNull();
        assertThat(redis.execute("HGET", name, owner)).isEqualTo("1");
        assertThat((Long) redis.execute("PTTL", name)).isBetween(9_000L, 10_000L);
        assertThat(redis.execute("HGET", name, "latchkey:token")).as("the hold keeps its token")
                .isEqualTo(Long.toString(first.fencingToken()));
        assertThat(redis.execute("GET", "latchkey:tokens")).as("the namespace's latest token")
                .isEqualTo(Long.toString(first.fencingToken()));

        assertThat(acquireNow(ops, name, owner(), 10_000)).as("busy for another owner").isNull();
        assertThat(ops.release(first).get()).isTrue();
        assertThat(redis.execute("EXISTS", name)).isEqualTo(0L);

        Grant second = acquireNow(ops, name, owner(), 10_000);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        assertThat(redis.execute("TTL", "latchkey:tokens")).as("the token key never expires").isEqualTo(-1L);
        assertThat(ops.release(second).get()).isTrue();
        assertThat(redis.execute("EXISTS", name, "{" + name + "}:latchkey:fence")).as("nothing of the name stays")
                .isEqualTo(0L);
    }

    @Test
    void anOrphanOfTheSameOwnerIsTakenOverWithANewToken() throws Exception {
        // The engine counts reentrancy locally; a field of the same owner is left by an attempt it gave up on.
        String name = uniqueName("orphan");
        String owner = owner();
        Grant orphan = acquireNow(ops, name, owner, 10_000);
        Grant current = acquireNow(ops, name, owner, 10_000);
        assertThat(current.fencingToken()).isGreaterThan(orphan.fencingToken());
        assertThat(redis.execute("HGET", name, owner)).isEqualTo("1");
        assertThat(ops.release(orphan).get()).as("clean-up of the orphan leaves the new hold alone").isFalse();
        assertThat(ops.isLocked(name).get()).isTrue();
        assertThat(ops.release(current).get()).isTrue();
        assertThat(ops.isLocked(name).get()).isFalse();
    }

    @Test
    void aRedissonReentrantCountIsReleasedWhole() throws Exception {
        String name = uniqueName("redisson-count");
        String owner = owner();
        Grant g = acquireNow(ops, name, owner, 10_000);
        redis.execute("HINCRBY", name, owner, "2");
        assertThat(ops.renew(List.of(g)).get()).isEmpty();
        assertThat(ops.release(g).get()).isTrue();
        assertThat(ops.isLocked(name).get()).isFalse();
    }

    @Test
    void releaseOfAStaleOrForeignHoldIsRefused() throws Exception {
        String name = uniqueName("stale");
        String owner = owner();
        Grant held = acquireNow(ops, name, owner, 10_000);
        Grant foreign = new Grant(name, owner(), held.fencingToken(), 10_000, false, 0, null);
        Grant stale = new Grant(name, owner, held.fencingToken() - 1, 10_000, false, 0, null);
        assertThat(ops.release(foreign).get()).isFalse();
        assertThat(ops.release(stale).get()).isFalse();
        assertThat(ops.isLocked(name).get()).isTrue();
        assertThat(ops.release(held).get()).isTrue();
        assertThat(ops.release(held).get()).as("second release").isFalse();
    }

    @Test
    void renewalExtendsOnlyTheExactHold() throws Exception {
        String name = uniqueName("renew");
        String owner = owner();
        Grant old = acquireNow(ops, name, owner, 300);
        assertThat(ops.release(old).get()).isTrue();
        Grant current = acquireNow(ops, name, owner, 300);
        Set<Grant> lost = ops.renew(List.of(old, new Grant(name, owner, current.fencingToken(), 60_000, true, 0,
                current.backendState()))).get();
        assertThat(lost).containsExactly(old);
        assertThat((Long) redis.execute("PTTL", name)).isGreaterThan(50_000L);

        String other = uniqueName("renew-gone");
        Grant gone = acquireNow(ops, other, owner(), 300);
        redis.execute("DEL", other);
        assertThat(ops.renew(List.of(gone)).get()).containsExactly(gone);
    }

    @Test
    void heldGrantsKeepNoKeysAndAreRenewedAndReleasedAfterTheKeyCacheDroppedThem() throws Exception {
        String name = uniqueName("uncached");
        Grant held = acquireNow(ops, name, owner(), 400);
        assertThat(held.backendState()).as("the keys are derived from the name, not kept per hold").isNull();
        // More names than the cache keeps: it is cleared, the held name's keys with it.
        for (int i = 0; i <= KeyCache.LIMIT; i++) {
            ops.keys(uniqueName("filler"));
        }
        Grant renewed = new Grant(name, held.ownerId(), held.fencingToken(), 60_000, true, 0, null);
        assertThat(ops.renew(List.of(renewed)).get()).isEmpty();
        assertThat((Long) redis.execute("PTTL", name)).isGreaterThan(50_000L);
        for (int i = 0; i <= KeyCache.LIMIT; i++) {
            ops.keys(uniqueName("filler"));
        }
        assertThat(ops.release(held).get()).isTrue();
        assertThat(redis.execute("EXISTS", name)).isEqualTo(0L);
    }

    @Test
    void theKeyCacheKeepsCycledAndContendedNamesNotHeldOnes() throws Exception {
        String name = uniqueName("cache");
        Grant held = acquireNow(ops, name, owner(), 10_000);
        assertThat(ops.keysCached(name)).as("granted at once: not cached while held").isFalse();
        assertThat(acquireNow(ops, name, owner(), 10_000)).as("busy for another owner").isNull();
        assertThat(ops.keysCached(name)).as("busy: a waiter attempts again").isTrue();
        assertThat(ops.release(held).get()).isTrue();

        String cycled = uniqueName("cache-cycled");
        Grant once = acquireNow(ops, cycled, owner(), 10_000);
        assertThat(ops.keysCached(cycled)).isFalse();
        assertThat(ops.release(once).get()).isTrue();
        assertThat(ops.keysCached(cycled)).as("released: the next cycle finds its keys").isTrue();
    }

    @Test
    void renewalOfAStaleGrantDoesNotExtendALaterHoldOfTheSameOwner() throws Exception {
        String name = uniqueName("renew-late");
        String owner = owner();
        Grant old = acquireNow(ops, name, owner, 60_000);
        ops.release(old).get();
        Grant shortLease = acquireNow(ops, name, owner, 400);
        // A renewal of the old hold that was still in flight must not turn the short lease into a long one.
        Grant staleRenewal = new Grant(name, owner, old.fencingToken(), 60_000, true, 0, old.backendState());
        assertThat(ops.renew(List.of(staleRenewal)).get()).containsExactly(staleRenewal);
        assertThat((Long) redis.execute("PTTL", name)).isLessThanOrEqualTo(400L);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(2))
                .until(() -> !ops.isLocked(name).get());
        assertThat(ops.release(shortLease).get()).as("expired").isFalse();
    }

    @Test
    void largeRenewalBatchesArePipelined() throws Exception {
        List<Grant> grants = new java.util.ArrayList<>();
        for (int i = 0; i < RedisLockOps.RENEW_BATCH + 10; i++) {
            grants.add(acquireNow(ops, uniqueName("batch"), owner(), 5_000));
        }
        assertThat(ops.renew(grants).get()).isEmpty();
        for (Grant g : grants) {
            ops.release(g).get();
        }
    }

    @Test
    void handOffSwapsOwnerWithANewTokenWithoutFreeing() throws Exception {
        String name = uniqueName("handoff");
        Grant from = acquireNow(ops, name, owner(), 10_000);
        String next = owner();
        AcquireRequest req = request(name, next, 5_000, Duration.ZERO);
        Grant to = ops.handOff(from, req).get();
        assertThat(to.fencingToken()).isGreaterThan(from.fencingToken());
        assertThat(to.ownerId()).isEqualTo(next);
        assertThat(redis.execute("HKEYS", name)).isEqualTo(
                List.of(next, LockKeys.TOKEN_FIELD, "latchkey:attempt", "latchkey:client", "latchkey:since"));
        assertThat(redis.execute("HGET", name, "latchkey:attempt")).as("the receiving request's attempt")
                .isEqualTo(req.attemptId());
        assertThat(redis.execute("HGET", name, LockKeys.TOKEN_FIELD)).isEqualTo(Long.toString(to.fencingToken()));
        assertThat(ops.handOff(from, request(name, owner(), 5_000, Duration.ZERO)).get()).as("from is gone").isNull();
        assertThat(ops.release(from).get()).isFalse();
        assertThat(ops.release(to).get()).isTrue();
    }

    @Test
    void holderNamesOwnerClientTokenAndExpiryInOneScript() throws Exception {
        String name = uniqueName("holder");
        assertThat(ops.holder(name).get()).isNull();
        String owner = owner();
        Grant g = acquireNow(ops, name, owner, 10_000);
        io.latchkey.LockHolder h = ops.holder(name).get();
        assertThat(h.owner()).isEqualTo(owner);
        assertThat(h.clientName()).isEqualTo(io.latchkey.ClientOptions.defaults().clientName());
        assertThat(h.fencingToken()).hasValue(g.fencingToken());
        assertThat(h.leaseLeft()).hasValueSatisfying(left -> assertThat(left.toMillis()).isBetween(1L, 10_000L));
        assertThat(h.heldSince()).isPresent();
        assertThat(h.waiters()).isEmpty();
        ops.release(g).get();
        assertThat(ops.holder(name).get()).isNull();
    }

    @Test
    void holderOfARedissonStyleHoldHasNoClientNameOrToken() throws Exception {
        String name = uniqueName("holder-redisson");
        redis.execute("HSET", name, "1b2c-uuid:7", "1");
        redis.execute("PEXPIRE", name, "10000");
        io.latchkey.LockHolder h = ops.holder(name).get();
        assertThat(h.owner()).isEqualTo("1b2c-uuid:7");
        assertThat(h.clientName()).isEqualTo(io.latchkey.LockHolder.UNKNOWN_CLIENT);
        assertThat(h.fencingToken()).isEmpty();
        assertThat(h.heldSince()).isEmpty();
        redis.execute("DEL", name);
    }

    @Test
    void forceUnlockAndIsLocked() throws Exception {
        String name = uniqueName("force");
        assertThat(ops.forceUnlock(name).get()).isFalse();
        Grant g = acquireNow(ops, name, owner(), 10_000);
        assertThat(ops.isLocked(name).get()).isTrue();
        assertThat(ops.forceUnlock(name).get()).isTrue();
        assertThat(ops.isLocked(name).get()).isFalse();
        assertThat(ops.release(g).get()).isFalse();
    }

    @Test
    void aRedissonHolderIsSeenAsBusyWithItsRemainingLease() throws Exception {
        String name = uniqueName("redisson-held");
        redis.execute("HSET", name, "some-redisson-id:42", "3");
        redis.execute("PEXPIRE", name, "400");
        RemoteLockOps.Attempt busy = ops.tryAcquire(request(name, owner(), 5_000, null), null).get(5, TimeUnit.SECONDS);
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.entry()).isNull();
        assertThat(TimeUnit.NANOSECONDS.toMillis(busy.recheckNanos())).as("re-check hint: the holder's PTTL + 1 ms")
                .isBetween(200L, 401L);
        long start = System.nanoTime();
        DistributedLock lock = client.lock(name);
        assertThat(lock.tryLock(5, TimeUnit.SECONDS)).isTrue();
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(waitedMs).as("woken at the holder's TTL, not by polling").isBetween(150L, 1_500L);
        lock.unlock();
    }

    @Test
    void aHolderWithoutExpiryGivesNoHint() throws Exception {
        String name = uniqueName("no-expiry");
        redis.execute("HSET", name, "some-redisson-id:42", "1");
        RemoteLockOps.Attempt busy = ops.tryAcquire(request(name, owner(), 5_000, null), null).get(5, TimeUnit.SECONDS);
        assertThat(busy.isGranted()).isFalse();
        assertThat(busy.recheckNanos()).as("the engine's bounded fallback re-check applies").isZero();
        redis.execute("DEL", name);
    }

    @Test
    void aTimedTryLockOnAHeldLockEndsInTimeAndUnsubscribes() throws Exception {
        String name = uniqueName("deadline");
        acquireNow(ops, name, owner(), 10_000);
        long start = System.nanoTime();
        boolean got = client.lock(name).tryLock(200, TimeUnit.MILLISECONDS);
        long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertThat(got).isFalse();
        assertThat(waitedMs).isBetween(190L, 1_000L);
        org.awaitility.Awaitility.await().until(() -> client.subscriptions().size() == 0);
    }

    @Test
    void anInterruptedWaiterLeavesNoLockAndUnsubscribes() throws Exception {
        String name = uniqueName("interrupt");
        Grant held = acquireNow(ops, name, owner(), 10_000);
        DistributedLock lock = client.lock(name);
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                lock.lockInterruptibly();
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        }, "interrupted-waiter");
        t.start();
        org.awaitility.Awaitility.await().until(() -> client.subscriptions().size() == 1);
        t.interrupt();
        assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        org.awaitility.Awaitility.await().until(() -> client.subscriptions().size() == 0);
        assertThat(ops.release(held).get()).isTrue();
        assertThat(ops.isLocked(name).get()).as("nothing left behind").isFalse();
    }

    /**
     * A fair or write hold is {@code owner|token|attempt id}, the client's name and the start, one line each: every
     * script reads the first line (renewal, clean-up by attempt id, holder, release), and a hold written by an
     * earlier version ({@code owner|token} alone) still renews, reports its holder and releases.
     */
    @Test
    void fairAndWriteHoldsKeepAttemptAndHolderLinesAndAcceptTheEarlierForm() throws Exception {
        RedisFairLockOps fair = client.synchronizers().fairOps();
        RedisReadWriteLockOps write = client.synchronizers().writeOps();
        for (RemoteLockOps lockOps : List.<RemoteLockOps>of(fair, write)) {
            String name = uniqueName("hold-value");
            String key = lockOps == fair ? fair.keys(name).owner : write.keys(name).write;
            String owner = owner();
            AcquireRequest req = request(name, owner, 10_000, Duration.ZERO);
            Grant grant = lockOps.tryAcquire(req, null).get(5, TimeUnit.SECONDS).grant();
            String[] lines = ((String) redis.execute("GET", key)).split("\n", -1);
            assertThat(lines).as("%s: owner|token|attempt id, client name, since", lockOps).hasSize(3);
            assertThat(lines[0]).isEqualTo(owner + "|" + grant.fencingToken() + "|" + req.attemptId());
            assertThat(lines[1]).isEqualTo(client.options().clientName());
            assertThat(Long.parseLong(lines[2])).as("since, server time in epoch ms")
                    .isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(60_000L));
            io.latchkey.LockHolder holder = lockOps.holder(name).get(5, TimeUnit.SECONDS);
            assertThat(holder.owner()).isEqualTo(owner);
            assertThat(holder.clientName()).isEqualTo(client.options().clientName());
            assertThat(holder.fencingToken()).hasValue(grant.fencingToken());
            assertThat(holder.heldSince()).isPresent();
            assertThat(lockOps.renew(List.of(grant)).get(5, TimeUnit.SECONDS)).as("renews").isEmpty();
            assertThat(lockOps.cleanUpAttempt(request(name, owner, 10_000, Duration.ZERO)).get(5, TimeUnit.SECONDS))
                    .as("another attempt's clean-up").isFalse();
            assertThat(lockOps.release(grant).get(5, TimeUnit.SECONDS)).isTrue();
            assertThat(redis.execute("EXISTS", key)).isEqualTo(0L);

            // A hold as the previous release wrote it.
            Grant old = lockOps.tryAcquire(request(name, owner, 10_000, Duration.ZERO), null)
                    .get(5, TimeUnit.SECONDS).grant();
            redis.execute("SET", key, owner + "|" + old.fencingToken(), "PX", "10000");
            assertThat(lockOps.holder(name).get(5, TimeUnit.SECONDS).fencingToken()).hasValue(old.fencingToken());
            assertThat(lockOps.renew(List.of(old)).get(5, TimeUnit.SECONDS)).as("the earlier form renews").isEmpty();
            assertThat(lockOps.release(old).get(5, TimeUnit.SECONDS)).as("and releases").isTrue();
            assertThat(redis.execute("EXISTS", key)).isEqualTo(0L);
        }
    }
}
