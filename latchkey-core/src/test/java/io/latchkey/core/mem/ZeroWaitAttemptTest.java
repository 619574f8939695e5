package io.latchkey.core.mem;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A zero-wait {@code tryLock()} races its own deadline timer on the watchdog thread: the timer must neither end the
 * wait before its one attempt has answered, nor end it between a grant's answer and the hold being recorded (the
 * grant was then dropped and stayed on the server until its lease ran out). The simulation cannot interleave inside
 * one engine call; this test does it with real threads, many times.
 */
class ZeroWaitAttemptTest {

    @Test
    void aZeroWaitAttemptOnAFreeLockTakesItAndLeavesNothingBehind() {
        String server = "mem://zero-wait-" + UUID.randomUUID();
        List<String> names = List.of("a", "b", "c", "d", "e", "f", "g", "h");
        try (LockClient a = LockClient.connect(server); LockClient b = LockClient.connect(server)) {
            for (int round = 0; round < 400; round++) {
                for (String name : names) {
                    DistributedLock held = a.lock(name);
                    assertThat(held.tryLock()).as("round %d: %s is free", round, name).isTrue();
                    try {
                        assertThat(b.lock(name).tryLock()).as("round %d: %s is held", round, name).isFalse();
                        for (String other : names) {
                            if (!other.equals(name)) {
                                DistributedLock lock = b.lock(other);
                                assertThat(lock.tryLock()).as("round %d: %s while %s is held", round, other, name)
                                        .isTrue();
                                lock.unlock();
                            }
                        }
                    } finally {
                        held.unlock();
                    }
                }
            }
        }
    }
}
