package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import org.junit.jupiter.api.Test;

/**
 * Idle per-name nameStates are kept for reuse only for a bounded time and number: two watchdog ticks after the last
 * use, and never more than {@code LockEngine.MAX_IDLE_NAME_STATES}; so no local state outlives a name's use for long.
 */
class IdleNameStateReuseTest {

    @Test
    void idleNameStatesAreBoundedAndDroppedWithinTwoTicks() {
        String server = CountingMemClient.newServer();
        try (CountingMemClient client = new CountingMemClient(server, CountingMemClient.shortWatchdog())) {
            for (int i = 0; i < 2000; i++) {
                DistributedLock lock = client.lock("idle-" + i);
                lock.lock();
                lock.unlock();
            }
            assertThat(client.engineForTest().localStateCount()).isZero();
            assertThat(client.engineForTest().nameStateCount()).isLessThanOrEqualTo(1024);

            // (the watchdog's own ticks may run in between too; they only drop nameStates sooner)
            client.engineForTest().renewNow();
            client.engineForTest().renewNow();
            assertThat(client.engineForTest().nameStateCount()).isZero();
            assertThat(client.engineForTest().localStateCount()).isZero();
        }
    }
}
