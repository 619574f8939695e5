package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import org.junit.jupiter.api.Test;

/**
 * Idle per-name slots are kept for reuse only for a bounded time and number: two watchdog ticks after the last
 * use, and never more than {@code LockEngine.MAX_IDLE_SLOTS}; so no local state outlives a name's use for long.
 */
class IdleSlotReuseTest {

    @Test
    void idleSlotsAreBoundedAndDroppedWithinTwoTicks() {
        String server = CountingMemClient.newServer();
        try (CountingMemClient client = new CountingMemClient(server, CountingMemClient.shortWatchdog())) {
            for (int i = 0; i < 2000; i++) {
                DistributedLock lock = client.lock("idle-" + i);
                lock.lock();
                lock.unlock();
            }
            assertThat(client.engineForTest().localStateCount()).isZero();
            assertThat(client.engineForTest().slotCount()).isLessThanOrEqualTo(1024);

            // (the watchdog's own ticks may run in between too; they only drop slots sooner)
            client.engineForTest().renewNow();
            client.engineForTest().renewNow();
            assertThat(client.engineForTest().slotCount()).isZero();
            assertThat(client.engineForTest().localStateCount()).isZero();
        }
    }
}
