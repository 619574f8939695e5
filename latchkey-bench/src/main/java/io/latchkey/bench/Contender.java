package io.latchkey.bench;

/**
 * One side of a comparison (Latchkey, Redisson, Curator, …, or a raw-client "limit"): a connected client that
 * hands out lock+unlock cycles for a scenario. Created once per benchmark run so that JIT warm-up and connection
 * setup carry over between rows, closed at the end.
 */
public interface Contender extends AutoCloseable {

    /** The column heading, such as {@code "Latchkey"}. */
    String name();

    /** How this side is connected (connections, threads, codec), printed under the table. */
    String setup();

    /**
     * The cycles for one run of {@code scenario}. {@code runId} is unique per run: lock names must include it, so
     * that a run never meets a lock left behind by an earlier one.
     */
    Cycle.PerThread cycles(Scenario scenario, String runId);

    @Override
    void close();
}
