package io.latchkey.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Deterministic simulation of the engine ({@link EngineSimulation}): many seeds, each a different mix of clients,
 * owners, operations and faults, all on a virtual clock. Checked after every event or at the end of each run: the
 * invariants of every client's name states ({@link NameState#checkInvariants()}, after every event); mutual
 * exclusion (from the owners' point of view) and growing fencing tokens; fair locks served in call order across
 * clients; no lost wake-up (a free lock or permits with waiters are taken within one re-check, plus the round trips
 * and the operation timeout of an answer the network lost); a timed wait ends by its deadline plus one attempt; a
 * grant that raced a cancel or an interrupt is given back (without faults no lease may run out on the server);
 * permits are conserved; a latch never opens early; what an attempt made at the server whose answer was lost (a hold,
 * a read hold, a leased permit, a semaphore's take) is gone within the round trips of its clean-up; nothing waits, stays queued, stays subscribed or stays held after
 * everyone finished or the clients closed. A failing seed prints itself and its last events; run it
 * alone with {@code -Dlatchkey.sim.seed=N}. {@code -Dlatchkey.sim.seeds=N} sets how many seeds a run tries (from
 * {@code -Dlatchkey.sim.from}, default 1).
 */
class EngineSimulationTest {

    /**
     * Seeds per run: 2,000 take 6 to 10 s on a loaded 2-core machine, which keeps the class under 12 s (more seeds
     * for a search: {@code -Dlatchkey.sim.seeds=N}).
     */
    private static final int DEFAULT_SEEDS = 2_000;

    @Test
    void seeds() {
        String one = System.getProperty("latchkey.sim.seed");
        if (one != null) {
            String failure = new EngineSimulation(Long.parseLong(one)).run();
            assertThat(failure).as("seed " + one).isNull();
            return;
        }
        long from = Long.getLong("latchkey.sim.from", 1);
        int count = Integer.getInteger("latchkey.sim.seeds", DEFAULT_SEEDS);
        List<String> failures = new ArrayList<>();
        for (long seed = from; seed < from + count && failures.size() < 3; seed++) {
            String failure = new EngineSimulation(seed).run();
            if (failure != null) {
                failures.add(failure);
            }
        }
        assertThat(failures).as("failing seeds").isEmpty();
    }

    /**
     * Seeds that once failed, kept as they are: 11, 174, 256 (a deadline that passed during a local hand-off let the
     * waiter time out and the handed-off lock ran out on the server), 309, 567, 662 (a fair waiter whose attempt got
     * no answer left its queue entry at the head until it expired), 64 (waking fair waiters in hash order made a run
     * depend on identity hash codes), 5 (a zero-wait attempt whose deadline timer ran before the attempt was sent ended
     * without looking); 30, 4, 66, 68, 22, 42 (an attempt the server applied but whose answer was lost left its grant on
     * the server for its lease, or its semaphore permits for ever: a thread's lock, a fair lock, a read and a write
     * hold, a semaphore's take, a leased permit; 309 failed the same way once lost answers of counted attempts could
     * be lost for good rather than late).
     */
    @Test
    void regressionSeeds() {
        for (long seed : new long[] {11, 174, 256, 309, 567, 662, 64, 5, 30, 4, 66, 68, 22, 42}) {
            assertThat(new EngineSimulation(seed).run()).as("seed " + seed).isNull();
        }
    }

    @Test
    void aSeedReplaysExactly() {
        for (long seed : new long[] {7, 42, 1234}) {
            EngineSimulation a = new EngineSimulation(seed);
            EngineSimulation b = new EngineSimulation(seed);
            assertThat(a.run()).isEqualTo(b.run());
            assertThat(a.sched.executed()).as("events of seed " + seed).isEqualTo(b.sched.executed());
            assertThat(String.join("\n", a.trace)).isEqualTo(String.join("\n", b.trace));
        }
    }
}
