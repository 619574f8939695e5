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
        SoloHistory.Previous late = h.previous("/l", now + TimeUnit.MILLISECONDS.toNanos(51));
        assertThat(late.provesAlone(SoloHistory.MIN_SEQUENCE + 1, 100 + 4 + SoloHistory.MIN_SEQUENCE))
                .as("window over").isFalse();
        assertThat(late.provesAlone(SoloHistory.MIN_SEQUENCE + 1, 100 + 3 + SoloHistory.MIN_SEQUENCE))
                .as("but the zxids leave no room, whenever it comes").isTrue();
    }

    @Test
    void onABusyServerAZxidGapSmallerThanOurNumberStillProvesIt() {
        // From number 500 a re-created path needs 500 creates, each a transaction of its own, besides our delete,
        // the reap and the re-creation bundled with its first create: a czxid 503 past the last leaves no room.
        SoloHistory.Previous p = new SoloHistory.Previous(500, 10_000, 0, false);
        assertThat(p.provesAlone(501, 10_503)).isTrue();
        assertThat(p.provesAlone(501, 10_504)).as("room for them").isFalse();
        assertThat(p.provesAlone(502, 10_100)).as("another create came first").isFalse();
        SoloHistory h = new SoloHistory();
        h.created(p, 10_400);
        assertThat(h.worthTrying(new SoloHistory.Previous(3, 100, 0, false))).as("a hint from the last").isTrue();
        h.created(p, 10_600);
        assertThat(h.worthTrying(new SoloHistory.Previous(3, 100, 0, false))).isFalse();
    }

    @Test
    void theListingIsLeftOutInAdvanceOnlyWhileRecentZxidGapsWereSmall() {
        SoloHistory h = new SoloHistory();
        long now = System.nanoTime();
        assertThat(h.worthTrying(null)).isFalse();
        SoloHistory.Previous small = new SoloHistory.Previous(3, 100, now, true);
        assertThat(h.worthTrying(small)).isTrue();
        h.created(small, 150);
        assertThat(h.worthTrying(small)).as("a busy server").isFalse();
        assertThat(h.worthTrying(new SoloHistory.Previous(SoloHistory.MIN_SEQUENCE, 100, now, true))).isTrue();
        h.created(small, 102);
        assertThat(h.worthTrying(small)).isTrue();
    }
}
