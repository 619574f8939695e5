package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.acquireNow;
import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.request;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.Grant;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Redis fencing tokens ({@link FencingTokens}): {@code max(last + 1, server µs)} per namespace, kept with the
 * hold, surviving a restart without persistence, carried over from the previous layout's per-name
 * counters (upgrade), and increasing while the server's clock is behind the last token.
 */
class RedisFencingTokensTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.standalone();

    private static final ClientOptions OPTIONS = ClientOptions.builder()
            .watchdogTimeout(Duration.ofSeconds(2))
            .operationTimeout(Duration.ofSeconds(3))
            .build();

    /** The server's clock in µs, as the scripts read it. */
    private static long serverMicros() {
        List<?> time = (List<?>) redis.execute("TIME");
        return Long.parseLong(String.valueOf(time.get(0))) * 1_000_000 + Long.parseLong(String.valueOf(time.get(1)));
    }

    /**
     * A fenced resource as storage keeps one: it accepts a write whose token is greater than every token it has
     * accepted and refuses the others (what {@code FencingGuard} does in SQL).
     */
    private static final class FencedRegister {
        private long highest;
        private int accepted;
        private int refused;

        boolean write(long token) {
            if (token > highest) {
                highest = token;
                accepted++;
                return true;
            }
            refused++;
            return false;
        }
    }

    @Test
    void issue9AfterARestartWithoutPersistenceTokensKeepIncreasingAndFencedWritesAreAcceptedAtOnce()
            throws Exception {
        String name = uniqueName("issue9");
        FencedRegister register = new FencedRegister();
        long highestBefore = 0;
        try (LockClient client = LockClient.connect(redis.uri(), OPTIONS)) {
            DistributedLock lock = client.lock(name);
            for (int i = 0; i < 200; i++) {
                try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
                    assertThat(register.write(lease.fencingToken())).as("write %d before the restart", i).isTrue();
                    highestBefore = Math.max(highestBefore, lease.fencingToken());
                }
            }
            redis.stop();
            redis.start();
            assertThat(redis.execute("DBSIZE")).as("the server restarted empty").isEqualTo(0L);

            List<Long> after = new ArrayList<>();
            after.add(acquireOnceAfterRestart(lock, register));
            for (int i = 0; i < 50; i++) {
                try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
                    after.add(lease.fencingToken());
                    register.write(lease.fencingToken());
                }
            }
            long highest = highestBefore;
            assertThat(after).as("every token after the restart exceeds every token before (%d)", highest)
                    .allSatisfy(token -> assertThat(token).isGreaterThan(highest));
            assertThat(after).isSorted().doesNotHaveDuplicates();
            assertThat(register.refused).as("fenced writes refused after the restart (the old per-name counter had 449 of 449 refused)")
                    .isZero();
            assertThat(register.accepted).isEqualTo(251);
        }
    }

    /** The first acquire after the restart (the client reconnects); its fenced write must be accepted. */
    private static long acquireOnceAfterRestart(DistributedLock lock, FencedRegister register) {
        long[] token = new long[1];
        Awaitility.await("the client reconnects").atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .ignoreException(LockUnavailableException.class)
                .until(() -> {
                    try (LockLease lease = lock.acquire(Duration.ofSeconds(30))) {
                        token[0] = lease.fencingToken();
                    }
                    return true;
                });
        assertThat(register.write(token[0])).as("the first fenced write after the restart is accepted").isTrue();
        return token[0];
    }

    @Test
    void everyLockKindIssuesTokensAbovePerNameCountersOfBuildsBeforeTheFirstRelease() throws Exception {
        // Builds before the first release counted each name's acquisitions from 1 in a key of the name's own. Such a
        // counter is not read any more: a token is the server's clock in µs (above 1.7e15), far above any count.
        String ns = uniqueName("upgrade") + "/";
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), OPTIONS.toBuilder().namespace(ns).build())) {
            long count = 1_000_000_000_000L; // a thousand billion acquisitions of one name
            String plain = uniqueName("upgrade-lock");
            String oldPlain = ns + "{" + ns + plain + "}:latchkey:fence";
            String fair = uniqueName("upgrade-fair");
            String oldFair = SyncKeys.base(ns, fair, "fair") + ":fence";
            String rw = uniqueName("upgrade-rw");
            String oldRw = SyncKeys.base(ns, rw, "rw") + ":fence";
            for (String old : List.of(oldPlain, oldFair, oldRw)) {
                redis.execute("SET", old, Long.toString(count));
            }
            long plainToken = tokenOf(() -> client.lock(plain));
            long fairToken = tokenOf(() -> client.fairLock(fair));
            long writeToken = tokenOf(() -> client.readWriteLock(rw).writeLock());
            long readToken = tokenOf(() -> client.readWriteLock(rw).readLock());
            assertThat(plainToken).isGreaterThan(count * 1000);
            assertThat(List.of(fairToken, writeToken, readToken)).isSortedAccordingTo(Long::compare)
                    .allSatisfy(t -> assertThat(t).isGreaterThan(plainToken));
            assertThat(redis.execute("EXISTS", ns + plain, SyncKeys.base(ns, fair, "fair") + ":owner",
                    SyncKeys.base(ns, rw, "rw") + ":write", SyncKeys.base(ns, rw, "rw") + ":readers"))
                    .as("nothing of the released names stays").isEqualTo(0L);
        }
    }

    private static long tokenOf(Supplier<DistributedLock> lock) throws InterruptedException {
        try (LockLease lease = lock.get().acquire(Duration.ofSeconds(30))) {
            return lease.fencingToken();
        }
    }

    @Test
    void whileTheServersClockIsBehindTheLastTokenTokensStillIncreaseByOne() throws Exception {
        // As if the clock had jumped back an hour after the last token: last + 1 carries the sequence.
        String namespace = uniqueName("clock-back") + "/";
        long last = serverMicros() + 3_600_000_000L;
        redis.execute("SET", namespace + FencingTokens.KEY_SUFFIX, Long.toString(last));
        ClientOptions options = OPTIONS.toBuilder().namespace(namespace).build();
        try (LockClient client = LockClient.connect(redis.uri(), options)) {
            List<Long> tokens = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                tokens.add(tokenOf(() -> client.lock("a")));
                tokens.add(tokenOf(() -> client.fairLock("b")));
                tokens.add(tokenOf(() -> client.readWriteLock("c").readLock()));
                tokens.add(tokenOf(() -> client.readWriteLock("c").writeLock()));
            }
            List<Long> expected = new ArrayList<>();
            for (int i = 1; i <= tokens.size(); i++) {
                expected.add(last + i);
            }
            assertThat(tokens).as("every lock kind of the namespace shares the sequence").isEqualTo(expected);
            assertThat(redis.execute("GET", namespace + FencingTokens.KEY_SUFFIX))
                    .isEqualTo(Long.toString(last + tokens.size()));
        }
    }

    @Test
    void theHoldKeepsItsExactTokenAndAHandOffIssuesAGreaterOne() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), OPTIONS)) {
            RedisLockOps ops = client.redisLockOps();
            String name = uniqueName("exact");
            Grant first = acquireNow(ops, name, owner(), 10_000);
            assertThat(first.fencingToken()).as("server µs, not a counter from 1")
                    .isGreaterThan(1_700_000_000_000_000L);
            // 16 digits: Lua would print 1.7e+15 if the scripts converted the number with its own tostring.
            assertThat(redis.execute("HGET", name, LockKeys.TOKEN_FIELD)).isEqualTo(Long.toString(first.fencingToken()));
            Grant second = ops.handOff(first, request(name, owner(), 10_000, Duration.ZERO)).get(5, TimeUnit.SECONDS);
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            assertThat(redis.execute("HGET", name, LockKeys.TOKEN_FIELD)).isEqualTo(Long.toString(second.fencingToken()));
            assertThat(ops.release(first).get()).as("the handed-off hold is not the first's any more").isFalse();
            assertThat(ops.release(second).get()).isTrue();
            assertThat(redis.execute("EXISTS", name)).isEqualTo(0L);

            DistributedLock fair = client.fairLock(uniqueName("exact-fair"));
            fair.lock();
            try {
                String held = (String) redis.execute("GET",
                        SyncKeys.base("", fair.name(), "fair") + ":owner");
                assertThat(held).as("owner|token|attempt id")
                        .contains("|" + fair.fencingToken().orElseThrow() + "|");
            } finally {
                fair.unlock();
            }
            DistributedLock read = client.readWriteLock(uniqueName("exact-rw")).readLock();
            read.lock();
            try {
                List<?> members = (List<?>) redis.execute("ZRANGE", SyncKeys.base("", read.name(), "rw")
                        + ":readers", "0", "-1");
                assertThat(members).singleElement().asString().endsWith("|" + read.fencingToken().orElseThrow());
            } finally {
                read.unlock();
            }
        }
    }

    @Test
    void theSpinLockIssuesTokensFromTheLocksSequence() throws Exception {
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), OPTIONS)) {
            String name = uniqueName("spin");
            long plain = tokenOf(() -> client.lock(name));
            long spin = tokenOf(() -> client.spinLock(name));
            assertThat(spin).isGreaterThan(plain);
            assertThat(redis.execute("EXISTS", name)).isEqualTo(0L);
        }
    }
}
