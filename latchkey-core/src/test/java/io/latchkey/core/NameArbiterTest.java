package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.core.NameArbiter.GrantState;
import io.latchkey.core.NameArbiter.Waiting;
import org.junit.jupiter.api.Test;

/**
 * The in-process arbiter's rules, which the mem server and the file backend share: who may take a name, what a grant
 * and a hand-over do to the queue, and the race of a renewal with a lease end.
 */
class NameArbiterTest {

    private static final long NOW = 1_000_000_000L;
    private static final long LEASE = 30_000_000_000L;
    private final NameArbiter<GrantState> name = new NameArbiter<>();
    private long tokens;

    private GrantState hold(String owner, boolean shared) {
        return new GrantState(owner, ++tokens, shared, NOW + LEASE, "client", 0);
    }

    private void queue(String owner, boolean shared) {
        name.enqueue(owner, new Waiting(shared, 0));
    }

    @Test
    void aFreeNameGoesToTheFirstInLineAndReadersDoNotOvertakeAQueuedWriter() {
        queue("w1", false);
        queue("r1", true);
        assertThat(name.mayTake("newcomer", false)).as("not queued: behind every queued owner").isFalse();
        assertThat(name.mayTake("r1", true)).as("a reader behind a writer").isFalse();
        assertThat(name.mayTake("w1", false)).isTrue();
        assertThat(name.grant(hold("w1", false))).as("an exclusive grant tells nobody").isFalse();
        assertThat(name.queue()).containsOnlyKeys("r1");
        assertThat(name.mayTake("r1", true)).as("held exclusively").isFalse();
        assertThat(name.mayTake("w1", true)).as("a downgrade, whatever the queue").isTrue();
    }

    @Test
    void readersShareAndASharedGrantWithOthersQueuedTellsThem() {
        queue("r1", true);
        queue("r2", true);
        queue("w1", false);
        assertThat(name.mayTake("r2", true)).as("only readers ahead").isTrue();
        assertThat(name.grant(hold("r2", true))).as("r1 may follow").isTrue();
        assertThat(name.mayTake("r1", true)).isTrue();
        assertThat(name.mayTake("w1", false)).as("shared holds exclude a writer").isFalse();
    }

    @Test
    void aHandOverEndsTheExclusiveHoldAndServesTheReceiversEntry() {
        GrantState from = hold("a", false);
        name.grant(from);
        queue("b", false);
        queue("c", false);
        GrantState to = hold("b", false);
        assertThat(name.handOver(from, to)).isTrue();
        assertThat(from.leaseEnd()).isEqualTo(GrantState.ENDED);
        assertThat(name.holds()).containsExactly(to);
        assertThat(name.queue()).containsOnlyKeys("c");
        assertThat(name.find("b", to.token())).isSameAs(to);
        assertThat(name.find("b", from.token())).as("owner and token together").isNull();
        GrantState reader = hold("r", true);
        assertThat(name.handOver(reader, hold("c", false))).as("not a hold of the name").isFalse();
    }

    @Test
    void aRenewalAndALeaseEndRaceAndTheEndIsFinal() {
        GrantState h = hold("a", false);
        name.grant(h);
        assertThat(h.renew(NOW + 1, LEASE)).isTrue();
        assertThat(name.earliestLeaseEnd()).isEqualTo(NOW + 1 + LEASE);
        assertThat(name.expire(NOW + LEASE)).isEmpty();
        assertThat(name.expire(NOW + 1 + LEASE)).containsExactly(h);
        assertThat(h.renew(NOW, LEASE)).as("a renewal after the end reports the hold lost").isFalse();
        assertThat(name.earliestLeaseEnd()).isEqualTo(GrantState.ENDED);
        assertThat(name.isIdle()).isTrue();
    }
}
