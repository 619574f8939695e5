package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.RedisBinary;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** A {@code valkey://} URI connects like {@code redis://}, here to a real {@code valkey-server}. */
class ValkeyUriTest {

    @RegisterExtension
    static RedisServerExtension valkey = RedisServerExtension.builder().binary(RedisBinary.VALKEY).build();

    @Test
    void aValkeyUriLocksOnValkeyServer() throws InterruptedException {
        assertThat((String) valkey.execute("INFO", "server")).contains("valkey_version:");
        String uri = "valkey://" + valkey.host() + ":" + valkey.port();
        try (LockClient first = LockClient.connect(uri, fastOptions());
             LockClient second = LockClient.connect(uri.toUpperCase().replace("VALKEY", "valkey"), fastOptions())) {
            String name = uniqueName("valkey");
            DistributedLock lock = first.lock(name);
            LockLease lease = lock.acquire(Duration.ofSeconds(5));
            assertThat(second.lock(name).tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
            lease.close();
            try (LockLease next = second.lock(name).acquire(Duration.ofSeconds(5))) {
                assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
            }
        }
    }
}
