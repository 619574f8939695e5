package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedReadWriteLock;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.RedisServerExtension;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Replica acknowledgement on a standalone server, which has no replica: every acked grant times out its
 * {@code WAIT}, is released and fails; and the option's argument checks.
 */
class RedisReplicaAckTest {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.standalone();

    private static final ClientOptions OPTIONS = ClientOptions.builder()
            .watchdogTimeout(Duration.ofSeconds(3))
            .operationTimeout(Duration.ofSeconds(3))
            .build();

    private static String name() {
        return "acks:" + UUID.randomUUID();
    }

    private static String acked() {
        return redis.uri() + "?replicaAcks=1&replicaAckTimeout=50ms";
    }

    @Test
    void withoutAReplicaEveryKindOfLockFailsAndLeavesNothingBehind() {
        try (RedisLockClient acked = (RedisLockClient) LockClient.connect(acked(), OPTIONS);
             LockClient plain = LockClient.connect(redis.uri(), OPTIONS)) {
            String n = name();
            DistributedReadWriteLock rw = acked.readWriteLock(n + ":rw");
            DistributedLock[] locks = {acked.lock(n), acked.fairLock(n + ":fair"), rw.readLock(), rw.writeLock(),
                    acked.spinLock(n + ":spin")};
            for (DistributedLock lock : locks) {
                assertThatThrownBy(lock::lock)
                        .as(lock.name())
                        .isInstanceOf(LockUnavailableException.class)
                        .hasMessageContaining("only 0 of 1 replicas acknowledged")
                        .hasMessageContaining("within 50 ms")
                        .hasMessageContaining("released again");
                assertThat(lock.isHeldByCurrentThread()).isFalse();
                assertThatThrownBy(() -> lock.tryAcquire(Duration.ofMillis(100)))
                        .isInstanceOf(LockUnavailableException.class);
            }
            // Nothing stays locked: a client without acks takes each at once.
            DistributedReadWriteLock plainRw = plain.readWriteLock(n + ":rw");
            for (DistributedLock lock : new DistributedLock[] {plain.lock(n), plain.fairLock(n + ":fair"),
                    plainRw.writeLock()}) {
                assertThat(lock.tryLock()).as(lock.name()).isTrue();
                lock.unlock();
            }
            assertThat(acked.toString()).contains("replicaAcks=1");
            assertThat(acked.redisOptions().replicaAckTimeout()).isEqualTo(Duration.ofMillis(50));
        }
    }

    @Test
    void offByDefaultAndZeroMeansOff() throws Exception {
        for (String uri : new String[] {redis.uri(), redis.uri() + "?replicaAcks=0"}) {
            try (RedisLockClient client = (RedisLockClient) LockClient.connect(uri, OPTIONS)) {
                assertThat(client.redisOptions()).isEqualTo(RedisOptions.defaults());
                assertThat(client.toString()).doesNotContain("replicaAcks");
                DistributedLock lock = client.lock(name());
                assertThat(lock.tryLock()).isTrue();
                lock.unlock();
            }
        }
    }

    @Test
    void anApplicationsClientTakesTheOptionsToo() {
        RedisClient lettuce = RedisClient.create(redis.uri());
        try (RedisLockClient client = RedisLockClient.create(lettuce, OPTIONS,
                RedisOptions.builder().replicaAcks(2).replicaAckTimeout(Duration.ofMillis(30)).build())) {
            assertThatThrownBy(() -> client.lock(name()).lock())
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("only 0 of 2 replicas acknowledged")
                    .hasMessageContaining("within 30 ms");
        } finally {
            lettuce.shutdown();
        }
    }

    @Test
    void badUriValuesAreRefusedWithTheReasonAndWithoutThePassword() {
        String base = "redis://u:hunter2@127.0.0.1:" + redis.port();
        String[][] cases = {
                {"?replicaAcks=-1", "replicaAcks must be zero (off) or positive but was -1"},
                {"?replicaAcks=many", "replicaAcks in Redis URI 'redis://***@127.0.0.1:"},
                {"?replicaAcks=1&replicaAckTimeout=0ms", "replicaAckTimeout must be at least 1ms but was PT0S"},
                {"?replicaAcks=1&replicaAckTimeout=-5ms", "replicaAckTimeout must be at least 1ms"},
                {"?replicaAcks=1&replicaAckTimeout=soon", "must be a duration such as 100ms or 2s but was 'soon'"},
                {"?replicaAcks=1&replicaAckTimeout=3s",
                        "replicaAckTimeout must be shorter than operationTimeout (PT3S) but was PT3S"},
        };
        for (String[] c : cases) {
            assertThatThrownBy(() -> LockClient.connect(base + c[0], OPTIONS))
                    .as(c[0])
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(c[1])
                    .satisfies(e -> assertThat(e.getMessage()).doesNotContain("hunter2"));
        }
    }

    @Test
    void builderChecksItsArguments() {
        assertThatThrownBy(() -> RedisOptions.builder().replicaAcks(-2))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replicaAcks must be zero (off) or positive but was -2");
        assertThatThrownBy(() -> RedisOptions.builder().replicaAckTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replicaAckTimeout must be at least 1ms but was PT0S");
        assertThatThrownBy(() -> RedisOptions.builder().replicaAckTimeout(Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisOptions.builder().replicaAckTimeout(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RedisOptions.builder().replicaAckTimeout(Duration.ofDays(2)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("replicaAckTimeout must be at most 1 day but was PT48H");
        assertThatThrownBy(() -> RedisOptions.builder().replicaAckTimeout(null))
                .isInstanceOf(NullPointerException.class);
        RedisClient lettuce = RedisClient.create(redis.uri());
        try {
            assertThatThrownBy(() -> RedisLockClient.create(lettuce, OPTIONS,
                    RedisOptions.builder().replicaAcks(1).replicaAckTimeout(Duration.ofSeconds(5)).build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("replicaAckTimeout must be shorter than operationTimeout (PT3S) but was PT5S");
        } finally {
            lettuce.shutdown();
        }
        RedisOptions options = RedisOptions.builder().replicaAcks(1).build();
        assertThat(options.replicaAckTimeout()).isEqualTo(RedisOptions.Builder.DEFAULT_REPLICA_ACK_TIMEOUT);
        assertThat(options).hasToString("RedisOptions{replicaAcks=1, replicaAckTimeout=100ms}");
        assertThat(RedisOptions.defaults()).hasToString("RedisOptions{replicaAcks=off}");
    }
}
