package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Per-name live local state (held, waited for, in flight) is gone as soon as a name is idle, whatever path it went
 * through; idle nameStates kept for reuse are bounded (IdleNameStateReuseTest).
 */
class LocalStateLeakTest {

    @Test
    void manyNamesLeaveNothingBehind() throws Exception {
        String server = CountingMemClient.newServer();
        try (CountingMemClient client = new CountingMemClient(server, CountingMemClient.shortWatchdog());
             MemLockClient other = MemLockClient.create(server, CountingMemClient.shortWatchdog())) {
            for (int i = 0; i < 2000; i++) {
                String name = "leak-" + i;
                DistributedLock lock = client.lock(name);
                switch (i % 5) {
                    case 0 -> {
                        lock.lock();
                        lock.lock();
                        lock.unlock();
                        lock.unlock();
                    }
                    case 1 -> lock.acquire(Duration.ofSeconds(5)).release();
                    case 2 -> {
                        DistributedLock busy = other.lock(name);
                        busy.lock();
                        assertThat(lock.tryLock()).isFalse();
                        assertThat(lock.tryLock(1, TimeUnit.MILLISECONDS)).isFalse();
                        busy.unlock();
                    }
                    case 3 -> {
                        LockLease lease = lock.acquireAsync().get(5, TimeUnit.SECONDS);
                        lease.releaseAsync().get(5, TimeUnit.SECONDS);
                    }
                    default -> {
                        lock.lock();
                        other.lock(name).forceUnlock();
                        try {
                            lock.unlock();
                        } catch (IllegalMonitorStateException expected) {
                            // lost (if the watchdog noticed first) or released nothing: either way, no state
                        }
                    }
                }
            }
            assertThat(client.engineForTest().localStateCount()).isZero();
            assertThat(client.engineForTest().renewedCount()).isZero();
        }
    }
}
