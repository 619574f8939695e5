package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.LockLease;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The renewer's lease bookkeeping on a manual clock: a failed renewal is retried, and a lease is lost only once
 * its local bound (last successful renewal + lease) has passed. The watchdog's own ticks (every 10 s here) never
 * run during the test; {@code renewNow()} drives it.
 */
class ManualClockRenewalTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final MemLockClient client = new MemLockClient(CountingMemClient.newServer(),
            ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(30)).build(), now::get);

    @AfterEach
    void close() {
        client.setServerAvailable(true);
        client.close();
    }

    private void advance(Duration d) {
        now.addAndGet(d.toNanos());
    }

    private void renewNow() {
        ((AbstractLockClient) client).engine().renewNow();
    }

    @Test
    void successfulRenewalMovesTheBoundAndFailuresAreRetriedUntilItPasses() throws Exception {
        LockLease lease = client.lock("manual").acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);

        advance(Duration.ofSeconds(20));
        renewNow();
        advance(Duration.ofSeconds(20));
        renewNow();
        assertThat(lease.isValid()).as("40 s after acquire, renewed at 20 s").isTrue();

        client.setServerAvailable(false);
        renewNow();
        advance(Duration.ofSeconds(14));
        renewNow();
        assertThat(lease.isValid()).as("renewals fail but the last good one (at 40 s) covers until 70 s, "
                + "past the next tick (64 s, up to 69 s if late)").isTrue();
        advance(Duration.ofSeconds(2));
        renewNow();
        assertThat(lease.isValid()).as("at 56 s a late next tick (71 s) would come too late").isFalse();
        assertThat(lease.isValid()).isFalse();
        assertThat(lost).hasValue(1);
        renewNow();
        assertThat(lost).hasValue(1);
    }
}
