package io.latchkey.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.core.Grant;
import io.latchkey.core.RemoteLockOps.Attempt;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BackoffTest {

    private static long ms(long millis) {
        return TimeUnit.MILLISECONDS.toNanos(millis);
    }

    @Test
    void aBusyAnswerWithoutBackoffIsRecheckedAtItsHintBoundedByTheFallback() {
        assertThat(Backoff.recheckNanos(Attempt.busy(ms(30)), ms(10_000))).isEqualTo(ms(30));
        assertThat(Backoff.recheckNanos(Attempt.queued("e", ms(60_000)), 0)).isEqualTo(Backoff.RECHECK_FALLBACK_NANOS);
        assertThat(Backoff.recheckNanos(Attempt.busy(0), 0)).isEqualTo(Backoff.RECHECK_FALLBACK_NANOS);
    }

    @Test
    void theBackoffGrowsWithTheTimeWaitedWithJitterUpToTheBound() {
        Attempt a = Attempt.busy(ms(500)).withBackoff(ms(10));
        for (long waited : new long[] {0, 5, 10, 40, 160, 499, 500, 10_000}) {
            long d = Math.min(500, Math.max(10, waited));
            for (int i = 0; i < 50; i++) {
                assertThat(Backoff.recheckNanos(a, ms(waited))).as("after %d ms", waited)
                        .isBetween(ms(d) / 2, ms(d));
            }
        }
        // the waits about double: each is about as long as the time waited so far
        long waited = 0;
        int looks = 0;
        while (waited < ms(300)) {
            waited += Backoff.recheckNanos(a, waited);
            looks++;
        }
        assertThat(looks).as("looks within 300 ms").isBetween(4, 12);
        // never past the engine's longest re-check
        assertThat(Backoff.recheckNanos(Attempt.busy(ms(60_000)).withBackoff(ms(10)), ms(60_000)))
                .isLessThanOrEqualTo(Backoff.RECHECK_FALLBACK_NANOS);
    }

    @Test
    void aBackoffNeedsAPositiveFirstWaitAndABusyAnswer() {
        assertThatThrownBy(() -> Attempt.busy(ms(1)).withBackoff(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the back-off's first wait must be positive but was 0 ns");
        Grant g = new Grant("n", "o", 1, 1000, false, 0, null);
        assertThatThrownBy(() -> Attempt.granted(g).withBackoff(ms(1))).isInstanceOf(IllegalStateException.class);
    }
}
