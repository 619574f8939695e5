package io.latchkey.etcd.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.testing.Simulation;
import org.junit.jupiter.api.Test;

/**
 * Deterministic simulation of the etcd lock queue's decisions ({@link EtcdQueueSimulation}) over many seeds, each
 * a different history of puts, reads, deletions, late and broken calls and expired leases. A failing seed prints itself
 * and its last events; run it alone with {@code -Dlatchkey.sim.seed=N}; {@code -Dlatchkey.sim.seeds=N} sets how many
 * seeds a run tries (from {@code -Dlatchkey.sim.from}, default 1).
 */
class EtcdQueueSimulationTest {

    /** Seeds per run: 2,000 take a few seconds (more for a search: {@code -Dlatchkey.sim.seeds=N}). */
    private static final int DEFAULT_SEEDS = 2_000;

    @Test
    void seeds() {
        assertThat(Simulation.failingSeeds(EtcdQueueSimulation::new, DEFAULT_SEEDS)).as("failing seeds").isEmpty();
    }

    @Test
    void aSeedReplaysExactly() {
        for (long seed : new long[] {7, 42, 1234}) {
            EtcdQueueSimulation a = new EtcdQueueSimulation(seed);
            EtcdQueueSimulation b = new EtcdQueueSimulation(seed);
            assertThat(a.run()).isEqualTo(b.run());
            assertThat(a.executed()).as("events of seed " + seed).isEqualTo(b.executed());
            assertThat(a.trace()).isEqualTo(b.trace());
        }
    }
}
