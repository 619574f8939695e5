package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.request;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps.Attempt;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Calls ready while others are in flight go out as group scripts: held back by {@code CLIENT PAUSE}, the first calls
 * are in flight alone (one per place, {@link ScriptGroups#IN_FLIGHT}) and the later ones join a group, which answers
 * each member as its own script would.
 */
class RedisScriptGroupsTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    @Test
    void callsReadyTogetherGoOutAsOneScriptAndEachIsAnsweredAsAlone() throws Exception {
        redis.execute("SCRIPT", "FLUSH"); // the group script is reloaded after NOSCRIPT
        try (RedisLockClient client = RedisLockClient.connect(redis.uri(), fastOptions())) {
            RedisLockOps ops = client.redisLockOps();
            RedisSemaphoreOps semaphore = client.synchronizers().semaphoreOps();
            String sem = uniqueName("group-sem");
            assertThat(semaphore.trySetPermits(sem, 1).get(5, TimeUnit.SECONDS)).isTrue();
            RedisPermitExpirableSemaphoreOps permits = client.synchronizers().permitExpirableSemaphoreOps();
            String leased = uniqueName("group-permits");
            assertThat(permits.trySetPermits(leased, 1).get(5, TimeUnit.SECONDS)).isTrue();
            String contended = uniqueName("group-contended");
            String wrongType = uniqueName("group-wrong-type");
            redis.execute("SET", wrongType, "not a lock");
            long before = scriptCalls();

            redis.pauseClients(Duration.ofMillis(300));
            List<CompletableFuture<Attempt>> distinct = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                distinct.add(ops.tryAcquire(request(uniqueName("group"), owner(), 10_000, Duration.ZERO), null));
            }
            List<CompletableFuture<Attempt>> same = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                same.add(ops.tryAcquire(request(contended, owner(), 10_000, Duration.ZERO), null));
            }
            CompletableFuture<Attempt> failing = ops.tryAcquire(request(wrongType, owner(), 10_000, Duration.ZERO),
                    null);
            CompletableFuture<Boolean> take = semaphore.tryTake(sem, 1);
            CompletableFuture<Boolean> second = semaphore.tryTake(sem, 1);
            CompletableFuture<RemoteCountOps.Attempt> lease = permits.tryLease(leased, "permit-1", 10_000, false);
            CompletableFuture<RemoteCountOps.Attempt> secondLease =
                    permits.tryLease(leased, "permit-2", 10_000, false);

            List<Grant> grants = new ArrayList<>();
            for (CompletableFuture<Attempt> a : distinct) {
                grants.add(a.get(5, TimeUnit.SECONDS).grant());
            }
            assertThat(grants).as("each distinct name granted").doesNotContainNull();
            for (int i = 1; i < grants.size(); i++) {
                assertThat(grants.get(i).fencingToken()).as("tokens increase in the order of the calls")
                        .isGreaterThan(grants.get(i - 1).fencingToken());
            }
            Grant winner = same.get(0).get(5, TimeUnit.SECONDS).grant();
            assertThat(winner).as("the first of one name").isNotNull();
            assertThat(winner.fencingToken()).isGreaterThan(grants.get(grants.size() - 1).fencingToken());
            for (CompletableFuture<Attempt> other : same.subList(1, same.size())) {
                assertThat(other.get(5, TimeUnit.SECONDS).grant()).as("one owner at a time").isNull();
            }
            assertThatThrownBy(() -> failing.get(5, TimeUnit.SECONDS)).as("a failing member fails alone")
                    .isInstanceOf(ExecutionException.class).hasMessageContaining("WRONGTYPE");
            assertThat(take.get(5, TimeUnit.SECONDS)).as("the semaphore's one permit").isTrue();
            assertThat(second.get(5, TimeUnit.SECONDS)).as("no second permit").isFalse();
            assertThat(lease.get(5, TimeUnit.SECONDS).grant()).as("the leased permit").isNotNull();
            assertThat(secondLease.get(5, TimeUnit.SECONDS).grant()).as("no second leased permit").isNull();
            // the first calls alone (one per place in flight), then groups (each with its EVAL after NOSCRIPT);
            // alone they would be 16
            assertThat(scriptCalls() - before).as("script calls")
                    .isLessThanOrEqualTo(2L * (ScriptGroups.IN_FLIGHT + 1));

            before = scriptCalls();
            redis.pauseClients(Duration.ofMillis(200));
            List<CompletableFuture<Boolean>> releases = new ArrayList<>();
            for (Grant g : grants) {
                releases.add(ops.release(g));
            }
            releases.add(ops.release(winner));
            releases.add(ops.release(grants.get(0))); // released twice: the second finds it gone
            CompletableFuture<Void> given = semaphore.give(sem, 1);
            CompletableFuture<Boolean> returned = permits.release(leased, "permit-1");
            for (int i = 0; i < releases.size() - 1; i++) {
                assertThat(releases.get(i).get(5, TimeUnit.SECONDS)).as("released").isTrue();
            }
            assertThat(releases.get(releases.size() - 1).get(5, TimeUnit.SECONDS)).as("already gone").isFalse();
            given.get(5, TimeUnit.SECONDS);
            assertThat(returned.get(5, TimeUnit.SECONDS)).as("the leased permit returned").isTrue();
            assertThat(scriptCalls() - before).as("script calls")
                    .isLessThanOrEqualTo(2L * ScriptGroups.IN_FLIGHT + 1); // the lone ones may meet NOSCRIPT
            for (Grant g : grants) {
                assertThat(redis.execute("EXISTS", g.name())).isEqualTo(0L);
            }
            assertThat(semaphore.availablePermits(sem).get(5, TimeUnit.SECONDS)).isEqualTo(1);
            assertThat(permits.availablePermits(leased).get(5, TimeUnit.SECONDS)).isEqualTo(1);
        }
    }

    /** EVALSHA and EVAL calls the server ran. */
    private static long scriptCalls() {
        String stats = (String) redis.execute("INFO", "commandstats");
        long total = 0;
        Matcher m = Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)").matcher(stats);
        while (m.find()) {
            total += Long.parseLong(m.group(2));
        }
        return total;
    }
}
