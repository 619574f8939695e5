package io.latchkey.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lone re-acquire shortcut trusts "the next sequence number" only where a reaped and re-created lock path could
 * not have reached it: a small number proves nothing once the server may delete empty paths, unless the zxids show
 * that no room was left for a reap and a re-creation.
 */
class SoloHistoryTest {

    private static String node(long sequence) {
        return LockNodes.protectedName("uuid", LockNodes.LOCK) + String.format("%010d", sequence);
    }

    @Test
    void aSmallSequenceNumberIsNotTrustedWhenOtherTransactionsRanBecauseAReCreatedPathStartsAgainAtZero() {
        SoloHistory h = new SoloHistory();
        long now = System.nanoTime();
        h.deletedAlone("/l", node(0), 100, now);
        SoloHistory.Previous p = h.previous("/l", now + 1);
        assertThat(p.provesAlone(1, 104)).as("delete, reap, re-create, create: 4 zxids on").isFalse();
        assertThat(p.provesAlone(1, 103)).as("our delete and one more transaction").isTrue();
        assertThat(p.provesAlone(2, 102)).as("another create came first").isFalse();
        assertThat(p.provesAlone(1, 100L + (1L << 32))).as("a new leader epoch").isFalse();
    }

    @Test
    void aLargeSequenceNumberRightAfterOurDeleteIsTrustedOnce() {
        SoloHistory h = new SoloHistory();
        long now = System.nanoTime();
        h.deletedAlone("/l", node(SoloHistory.MIN_SEQUENCE), 100, now);
        SoloHistory.Previous p = h.previous("/l", now + 1);
        assertThat(p.provesAlone(SoloHistory.MIN_SEQUENCE + 1, 5_000)).isTrue();
        assertThat(h.previous("/l", now + 2)).as("consumed").isNull();
        h.deletedAlone("/l", node(SoloHistory.MIN_SEQUENCE), 100, now);
        assertThat(h.previous("/l", now + TimeUnit.MILLISECONDS.toNanos(51))).as("window over").isNull();
    }

    @Test
    void theListingIsLeftOutInAdvanceOnlyWhileRecentZxidGapsWereSmall() {
        SoloHistory h = new SoloHistory();
        long now = System.nanoTime();
        assertThat(h.worthTrying(null)).isFalse();
        SoloHistory.Previous small = new SoloHistory.Previous(3, 100, now);
        assertThat(h.worthTrying(small)).isTrue();
        h.created(small, 150);
        assertThat(h.worthTrying(small)).as("a busy server").isFalse();
        assertThat(h.worthTrying(new SoloHistory.Previous(SoloHistory.MIN_SEQUENCE, 100, now))).isTrue();
        h.created(small, 102);
        assertThat(h.worthTrying(small)).isTrue();
    }
}
