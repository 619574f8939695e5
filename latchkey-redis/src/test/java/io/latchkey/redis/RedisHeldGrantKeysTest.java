package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.owner;
import static io.latchkey.redis.RedisTestSupport.request;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fair and read-write grants keep no keys of their own: held names are renewed and released from their name, also
 * after the key cache dropped them.
 */
class RedisHeldGrantKeysTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient client;

    @BeforeEach
    void connect() {
        client = RedisLockClient.connect(redis.uri(), fastOptions());
    }

    @AfterEach
    void close() {
        client.close();
    }

    @Test
    void aFairGrantIsRenewedAndReleasedAfterTheKeyCacheDroppedItsName() throws Exception {
        RedisFairLockOps ops = client.synchronizers().fairOps();
        check(ops, name -> ops.keys(name), name -> ops.keys(name).owner);
    }

    @Test
    void aWriteGrantIsRenewedAndReleasedAfterTheKeyCacheDroppedItsName() throws Exception {
        RedisReadWriteLockOps ops = client.synchronizers().writeOps();
        check(ops, name -> ops.keys(name), name -> ops.keys(name).write);
    }

    @Test
    void aReadGrantIsRenewedAndReleasedAfterTheKeyCacheDroppedItsName() throws Exception {
        RedisReadWriteLockOps ops = client.synchronizers().readOps();
        check(ops, name -> ops.keys(name), name -> ops.keys(name).readers);
    }

    private static void check(RemoteLockOps ops, Consumer<String> touch,
                              java.util.function.Function<String, String> heldKey) throws Exception {
        String name = uniqueName("held-keys");
        String key = heldKey.apply(name);
        Grant held = ops.tryAcquire(request(name, owner(), 400, Duration.ZERO), null).get(5, TimeUnit.SECONDS)
                .grant();
        assertThat(held).isNotNull();
        assertThat(held.backendState()).as("the keys are derived from the name, not kept per hold").isNull();
        for (int i = 0; i <= KeyCache.LIMIT; i++) {
            touch.accept(uniqueName("filler"));
        }
        Grant renewed = new Grant(name, held.ownerId(), held.fencingToken(), 60_000, true, 0, null);
        assertThat(ops.renew(List.of(renewed)).get(5, TimeUnit.SECONDS)).isEmpty();
        assertThat((Long) redis.execute("PTTL", key)).isGreaterThan(50_000L);
        for (int i = 0; i <= KeyCache.LIMIT; i++) {
            touch.accept(uniqueName("filler"));
        }
        assertThat(ops.release(held).get(5, TimeUnit.SECONDS)).isTrue();
        assertThat(redis.execute("EXISTS", key)).isEqualTo(0L);
    }
}
