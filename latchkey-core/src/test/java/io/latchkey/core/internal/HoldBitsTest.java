package io.latchkey.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.core.Grant;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A hold keeps its state, its clean-up claim and its position in the fixed-lease heap in one int: each reads back
 * as set whatever the others do, and the heap keeps every tracked hold's position and its order by deadline.
 */
class HoldBitsTest {

    private static Hold hold(int i) {
        return new Hold(null, "c:lease-" + i, false, new Grant("l" + i, "c:lease-" + i, 1, 1_000, false, 0, null), 0);
    }

    @Test
    void stateCleanUpAndExpiryIndexAreIndependent() {
        Hold h = hold(0);
        assertThat(h.state()).isEqualTo(Hold.State.HELD);
        assertThat(h.isHeld()).isTrue();
        assertThat(h.expiryIndex()).isEqualTo(-1);

        h.expiryIndex(Hold.MAX_EXPIRY_INDEX);
        assertThat(h.state()).isEqualTo(Hold.State.HELD);
        assertThat(h.expiryIndex()).isEqualTo(Hold.MAX_EXPIRY_INDEX);

        assertThat(h.casState(Hold.State.RELEASING, Hold.State.RELEASED)).isFalse();
        assertThat(h.casState(Hold.State.HELD, Hold.State.RELEASING)).isTrue();
        assertThat(h.state()).isEqualTo(Hold.State.RELEASING);
        assertThat(h.isHeld()).isFalse();
        assertThat(h.expiryIndex()).isEqualTo(Hold.MAX_EXPIRY_INDEX);

        assertThat(h.claimCleanUp()).isTrue();
        assertThat(h.claimCleanUp()).isFalse();
        assertThat(h.state()).isEqualTo(Hold.State.RELEASING);

        h.expiryIndex(0);
        assertThat(h.expiryIndex()).isZero();
        h.setState(Hold.State.LOST);
        assertThat(h.state()).isEqualTo(Hold.State.LOST);
        assertThat(h.expiryIndex()).isZero();
        assertThat(h.claimCleanUp()).isFalse();
        h.expiryIndex(-1);
        assertThat(h.expiryIndex()).isEqualTo(-1);
        assertThat(h.state()).isEqualTo(Hold.State.LOST);
        assertThat(h.lostReason()).isNull();
    }

    @Test
    void theFixedLeaseHeapKeepsPositionsAndDeadlineOrder() throws Exception {
        long[] now = {1_000};
        FixedLeaseExpiry expiry = new FixedLeaseExpiry((task, delay) -> null, () -> now[0]);
        Random random = new Random(42);
        List<Hold> tracked = new ArrayList<>();
        for (int i = 0; i < 2_000; i++) {
            Hold h = hold(i);
            expiry.track(h, random.nextInt(1_000_000) - 1_000);
            tracked.add(h);
            if (random.nextInt(3) == 0) {
                Hold gone = tracked.remove(random.nextInt(tracked.size()));
                expiry.untrack(gone);
                assertThat(gone.expiryIndex()).isEqualTo(-1);
                assertThat(gone.isHeld()).isTrue();
            }
        }
        Collections.shuffle(tracked, random);
        for (Hold h : tracked.subList(0, tracked.size() / 2)) {
            h.casState(Hold.State.HELD, Hold.State.RELEASING); // a state change must not move it in the heap
        }
        assertThat(expiry.size()).isEqualTo(tracked.size());
        FixedLeaseExpiry.Entry[] heap = (FixedLeaseExpiry.Entry[]) field("heap").get(expiry);
        long[] deadlines = (long[]) field("deadlines").get(expiry);
        for (int i = 0; i < tracked.size(); i++) {
            assertThat(heap[i].expiryIndex()).as("position of heap[%d]", i).isEqualTo(i);
            if (i > 0) {
                assertThat(deadlines[(i - 1) / 2]).as("parent of %d due first", i).isLessThanOrEqualTo(deadlines[i]);
            }
        }
        for (Hold h : tracked) {
            assertThat(heap[h.expiryIndex()]).isSameAs(h);
        }
        expiry.clear();
        for (Hold h : tracked) {
            assertThat(h.expiryIndex()).isEqualTo(-1);
        }
    }

    private static Field field(String name) throws NoSuchFieldException {
        Field f = FixedLeaseExpiry.class.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}
