package io.latchkey.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Deterministic simulation of the in-process arbiter ({@link ArbiterSimulation}): many seeds, each a different mix of
 * owners, clients, waits, hand-offs and faults, on a virtual clock. A failing seed prints itself and its last events;
 * run it alone with {@code -Dlatchkey.sim.seed=N}; {@code -Dlatchkey.sim.seeds=N} sets how many seeds a run tries
 * (from {@code -Dlatchkey.sim.from}, default 1).
 */
class ArbiterSimulationTest {

    /** Seeds per run: 2,000 take a few seconds (more for a search: {@code -Dlatchkey.sim.seeds=N}). */
    private static final int DEFAULT_SEEDS = 2_000;

    @Test
    void seeds() {
        String one = System.getProperty("latchkey.sim.seed");
        if (one != null) {
            assertThat(new ArbiterSimulation(Long.parseLong(one)).run()).as("seed " + one).isNull();
            return;
        }
        long from = Long.getLong("latchkey.sim.from", 1);
        int count = Integer.getInteger("latchkey.sim.seeds", DEFAULT_SEEDS);
        List<String> failures = new ArrayList<>();
        for (long seed = from; seed < from + count && failures.size() < 3; seed++) {
            String failure = new ArbiterSimulation(seed).run();
            if (failure != null) {
                failures.add(failure);
            }
        }
        assertThat(failures).as("failing seeds").isEmpty();
    }

    /**
     * The arbiter queues an owner that asks for the name it holds exclusively (reentrancy is the engine's), so it
     * relies on the engine's rule that no attempt of a name is out while a hand-off of it is: without the rule these
     * seeds leave the owner a hand-off served queued behind its own hold, blocking every waiter once it lets go.
     */
    @Test
    void anAttemptCrossingAHandOffWouldLeaveItsOwnerQueued() {
        for (long seed : new long[] {73, 79, 100}) {
            assertThat(new ArbiterSimulation(seed).run()).as("seed " + seed).isNull();
            assertThat(new ArbiterSimulation(seed, false).run()).as("seed " + seed + " without the rule")
                    .contains("is still queued after it gave up");
        }
    }

    @Test
    void aSeedReplaysExactly() {
        for (long seed : new long[] {7, 42, 1234}) {
            ArbiterSimulation a = new ArbiterSimulation(seed);
            ArbiterSimulation b = new ArbiterSimulation(seed);
            assertThat(a.run()).isEqualTo(b.run());
            assertThat(a.sched.executed()).as("events of seed " + seed).isEqualTo(b.sched.executed());
            assertThat(String.join("\n", a.trace)).isEqualTo(String.join("\n", b.trace));
        }
    }
}
