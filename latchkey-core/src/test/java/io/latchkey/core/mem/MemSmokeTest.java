package io.latchkey.core.mem;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MemSmokeTest {

    @Test
    void lockUnlockAcrossClients() throws Exception {
        String server = "smoke-" + UUID.randomUUID();
        try (LockClient a = LockClient.connect("mem://" + server); LockClient b = LockClient.connect("mem://" + server)) {
            DistributedLock la = a.lock("x");
            DistributedLock lb = b.lock("x");
            la.lock();
            long t1 = la.fencingToken().getAsLong();
            assertThat(lb.tryLock()).isFalse();
            assertThat(lb.tryLock(50, TimeUnit.MILLISECONDS)).isFalse();
            la.lock();
            assertThat(la.getHoldCount()).isEqualTo(2);
            la.unlock();
            la.unlock();
            assertThat(lb.tryLock(1, TimeUnit.SECONDS)).isTrue();
            assertThat(lb.fencingToken().getAsLong()).isGreaterThan(t1);
            lb.unlock();
            try (LockLease lease = la.acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).isTrue();
                assertThat(lb.isLocked()).isTrue();
            }
            assertThat(lb.isLocked()).isFalse();
        }
    }
}
