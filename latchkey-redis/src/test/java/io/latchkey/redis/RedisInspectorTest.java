package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisInspectorTest {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    @Test
    void listsHeldLocksOfTheNamespaceMatchingThePattern() {
        ClientOptions options = RedisTestSupport.fastOptions().toBuilder().namespace("app[1]:").build();
        try (LockClient client = LockClient.connect(redis.uri(), options)) {
            assertThat(client).isInstanceOf(LockInspector.class);
            LockInspector inspector = (LockInspector) client;
            DistributedLock orders = client.lock("orders:1");
            DistributedLock users = client.lock("users:*");
            orders.lock(Duration.ofSeconds(20));
            users.lock();
            redis.execute("HSET", "app[1]:redisson-held", "some-uuid:7", "2");
            redis.execute("PEXPIRE", "app[1]:redisson-held", "20000");
            redis.execute("HSET", "app[1]:not-a-lock", "field", "text");
            redis.execute("HSET", "other:orders:2", "x:1", "1");
            try {
                List<LockInfo> all = inspector.list("*");
                assertThat(all).extracting(LockInfo::name)
                        .containsExactly("orders:1", "redisson-held", "users:*");
                LockInfo first = all.get(0);
                assertThat(first.owner()).startsWith(client.clientId() + ":");
                assertThat(first.holdCount()).isEqualTo(1);
                assertThat(first.fencingToken()).isEqualTo(orders.fencingToken());
                assertThat(first.remainingLease().orElseThrow()).isBetween(Duration.ofSeconds(15),
                        Duration.ofSeconds(20));
                assertThat(all.get(1).holdCount()).isEqualTo(2);
                assertThat(inspector.list("orders:?")).extracting(LockInfo::name).containsExactly("orders:1");
                assertThat(inspector.list("users:\\*")).isEmpty();
                assertThat(inspector.list("users:*")).extracting(LockInfo::name).containsExactly("users:*");
            } finally {
                orders.unlock();
                users.unlock();
            }
            assertThat(inspector.list(null)).extracting(LockInfo::name).containsExactly("redisson-held");
        }
    }
}
