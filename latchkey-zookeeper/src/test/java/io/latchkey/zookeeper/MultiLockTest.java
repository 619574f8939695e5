package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.Locks;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Core's multi-lock over ZooKeeper locks: all or nothing, across clients. */
class MultiLockTest {

    @Test
    void multiLockTakesAllOrNothing() throws Exception {
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(3)).build();
        String a = "multi-a-" + UUID.randomUUID();
        String b = "multi-b-" + UUID.randomUUID();
        try (LockClient c1 = LockClient.connect(SharedZooKeeper.server().uri(), options);
             LockClient c2 = LockClient.connect(SharedZooKeeper.server().uri(), options)) {
            DistributedLock both = Locks.multiLock(c1.lock(a), c1.lock(b));
            DistributedLock onlyB = c2.lock(b);
            assertThat(onlyB.tryLock()).isTrue();
            assertThat(both.tryLock(300, TimeUnit.MILLISECONDS)).as("b is taken elsewhere").isFalse();
            assertThat(c2.lock(a).tryLock()).as("a was not left behind").isTrue();
            c2.lock(a).unlock();
            onlyB.unlock();
            assertThat(both.tryLock(5, TimeUnit.SECONDS)).isTrue();
            assertThat(c2.lock(a).tryLock()).isFalse();
            assertThat(c2.lock(b).tryLock()).isFalse();
            both.unlock();
            assertThat(c2.lock(b).tryLock()).isTrue();
            c2.lock(b).unlock();
        }
    }
}
