package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.acquireNow;
import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.request;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.core.Grant;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How many commands each operation sends, counted by the server (INFO commandstats). */
class RedisRoundTripTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient client;
    private RedisLockOps ops;

    @BeforeEach
    void connect() throws Exception {
        client = RedisLockClient.connect(redis.uri(), fastOptions());
        ops = client.redisLockOps();
        // Load every script once so that the counts below do not include the NOSCRIPT fallback.
        Grant warm = acquireNow(ops, uniqueName("warm"), owner(), 1_000);
        ops.renew(List.of(warm)).get();
        ops.release(warm).get();
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void acquireAndReleaseAreOneEvalshaEach() throws Exception {
        String name = uniqueName("rt");
        long before = clientCommands();
        Grant g = acquireNow(ops, name, owner(), 10_000);
        assertThat(clientCommands() - before).as("acquire").isEqualTo(1);
        before = clientCommands();
        ops.release(g).get();
        assertThat(clientCommands() - before).as("release").isEqualTo(1);
    }

    @Test
    void renewingAHundredHoldsIsOneEvalsha() throws Exception {
        List<Grant> grants = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            grants.add(acquireNow(ops, uniqueName("rt-batch"), owner(), 10_000));
        }
        long before = clientCommands();
        assertThat(ops.renew(grants).get()).isEmpty();
        assertThat(clientCommands() - before).isEqualTo(1);
    }

    @Test
    void aWaiterSendsNothingWhileItWaits() throws Exception {
        String name = uniqueName("rt-wait");
        Grant held = acquireNow(ops, name, owner(), 10_000);
        long before = clientCommands();
        var waiting = client.lock(name).tryAcquireAsync(Duration.ofSeconds(20), Duration.ofSeconds(10));
        Thread.sleep(500);
        // attempt, SUBSCRIBE, attempt once the subscription took effect; then silence until a message or the TTL
        assertThat(clientCommands() - before).isEqualTo(3);
        ops.release(held).get();
        assertThat(waiting.get()).isPresent();
    }

    /**
     * Commands sent by clients. Redis counts the commands a script runs in commandstats too, so only the
     * commands the backend sends itself are summed: EVALSHA, EVAL, SCRIPT, SUBSCRIBE, UNSUBSCRIBE.
     */
    private static long clientCommands() {
        String stats = (String) redis.execute("INFO", "commandstats");
        long total = 0;
        Matcher m = Pattern.compile("cmdstat_(\\w+(?:\\|\\w+)?):calls=(\\d+)").matcher(stats);
        while (m.find()) {
            if (List.of("evalsha", "eval", "subscribe", "unsubscribe").contains(m.group(1))
                    || m.group(1).startsWith("script")) {
                total += Long.parseLong(m.group(2));
            }
        }
        return total;
    }
}
