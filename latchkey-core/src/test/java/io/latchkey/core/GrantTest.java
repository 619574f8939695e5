package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A grant keeps its lease time and watchdog flag in one field: both read back as given, at every edge. */
class GrantTest {

    @Test
    void leaseTimeAndWatchdogFlagReadBackAsGiven() {
        for (long millis : new long[] {0, 1, 30_000, Integer.MAX_VALUE + 1L, Long.MAX_VALUE}) {
            for (boolean watchdog : new boolean[] {false, true}) {
                Grant g = new Grant("l", "c:1", 7, millis, watchdog, 123, null);
                assertThat(g.leaseMillis()).as("lease of %d ms, watchdog %s", millis, watchdog).isEqualTo(millis);
                assertThat(g.watchdog()).as("lease of %d ms, watchdog %s", millis, watchdog).isEqualTo(watchdog);
                assertThat(g.fencingToken()).isEqualTo(7);
                assertThat(g.requestedAtNanos()).isEqualTo(123);
            }
        }
    }

    @Test
    void aGrantFromARequestTakesItsLeaseAndFlag() {
        AcquireRequest r = new AcquireRequest("l", "c:lease-1", 10_000, true, AcquireRequest.NO_DEADLINE,
                TimeSource.SYSTEM);
        Grant g = new Grant(r, 3, 0, null);
        assertThat(g.leaseMillis()).isEqualTo(10_000);
        assertThat(g.watchdog()).isTrue();
        assertThat(g.ownerId()).isEqualTo("c:lease-1");
        assertThat(g.toString()).contains("leaseMillis=10000", "watchdog=true");
    }

    @Test
    void aNegativeLeaseTimeIsRejectedWithTheReason() {
        assertThatThrownBy(() -> new Grant("l", "c:1", 1, -1, false, 0, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be negative")
                .hasMessageContaining("-1 ms");
    }
}
