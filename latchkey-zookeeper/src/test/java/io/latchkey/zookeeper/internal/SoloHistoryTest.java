package io.latchkey.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lone re-acquire shortcut trusts "the next sequence number" only where a reaped and re-created lock path could
 * not have reached it within the window: a small number proves nothing once the server may delete empty paths.
 */
class SoloHistoryTest {

    private static String node(long sequence) {
        return LockNodes.protectedName("uuid", LockNodes.LOCK) + String.format("%010d", sequence);
    }

    @Test
    void aSmallSequenceNumberIsNotTrustedBecauseAReCreatedPathStartsAgainAtZero() {
        SoloHistory h = new SoloHistory();
        long now = System.nanoTime();
        h.deletedAlone("/l", node(0), now);
        assertThat(h.expectedNext("/l", now + 1)).isEqualTo(-1);
        h.deletedAlone("/l", node(SoloHistory.MIN_SEQUENCE - 2), now);
        assertThat(h.expectedNext("/l", now + 1)).isEqualTo(-1);
    }

    @Test
    void aLargeSequenceNumberRightAfterOurDeleteIsTrustedOnce() {
        SoloHistory h = new SoloHistory();
        long now = System.nanoTime();
        h.deletedAlone("/l", node(SoloHistory.MIN_SEQUENCE), now);
        assertThat(h.expectedNext("/l", now + 1)).isEqualTo(SoloHistory.MIN_SEQUENCE + 1);
        assertThat(h.expectedNext("/l", now + 2)).as("consumed").isEqualTo(-1);
        h.deletedAlone("/l", node(SoloHistory.MIN_SEQUENCE), now);
        assertThat(h.expectedNext("/l", now + TimeUnit.MILLISECONDS.toNanos(51))).as("window over").isEqualTo(-1);
    }
}
