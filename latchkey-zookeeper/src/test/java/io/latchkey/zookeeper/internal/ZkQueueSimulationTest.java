package io.latchkey.zookeeper.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.Simulation;
import org.junit.jupiter.api.Test;

/**
 * Deterministic simulation of the ZooKeeper lock queue's decisions ({@link ZkQueueSimulation}) over many seeds, each
 * a different history of creates, listings, watches, lost replies and expired sessions. A failing seed prints itself
 * and its last events; run it alone with {@code -Dlatchkey.sim.seed=N}; {@code -Dlatchkey.sim.seeds=N} sets how many
 * seeds a run tries (from {@code -Dlatchkey.sim.from}, default 1).
 */
class ZkQueueSimulationTest {

    /** Seeds per run: 2,000 take a few seconds (more for a search: {@code -Dlatchkey.sim.seeds=N}). */
    private static final int DEFAULT_SEEDS = 2_000;

    @Test
    void seeds() {
        assertThat(Simulation.failingSeeds(ZkQueueSimulation::new, DEFAULT_SEEDS)).as("failing seeds").isEmpty();
    }

    @Test
    void aSeedReplaysExactly() {
        for (long seed : new long[] {7, 42, 1234}) {
            ZkQueueSimulation a = new ZkQueueSimulation(seed);
            ZkQueueSimulation b = new ZkQueueSimulation(seed);
            assertThat(a.run()).isEqualTo(b.run());
            assertThat(a.executed()).as("events of seed " + seed).isEqualTo(b.executed());
            assertThat(a.trace()).isEqualTo(b.trace());
        }
    }
}
