package io.latchkey.core.internal;

import io.latchkey.core.TimeSource;

/**
 * A fault that strikes one client of an {@link EngineSimulation} run while the others go on, beyond the network's
 * faults that strike every message ({@link SimBackend.Faults}): a clock that jumps ({@link SimClockJumps}), a
 * connection or session that is lost ({@link SimSessionLoss}). The run asks it for each client's clock and timers,
 * lets it schedule its faults, and calls {@link #check} after every event; the model may excuse what its fault makes
 * unavoidable (a client whose clock went back believes in a lease the server already ended) and must then check the
 * weaker property that still holds. {@link #NONE} changes nothing: a run without a model is the run of its seed.
 */
interface SimFaultModel {

    SimFaultModel NONE = new SimFaultModel() {
    };

    /** The clock client {@code client}'s engine and backend read. */
    default TimeSource clock(EngineSimulation sim, int client) {
        return sim.sched;
    }

    /** The clock client {@code client}'s watchdog timers measure their delays on. */
    default TimeSource timerClock(EngineSimulation sim, int client) {
        return clock(sim, client);
    }

    /** The watchdog timers of client {@code client}'s engine. */
    default SimScheduler.Timers timers(EngineSimulation sim, int client) {
        return sim.sched.timers();
    }

    /** Called once every client exists, before the first event: set up the clients and schedule the faults. */
    default void start(EngineSimulation sim) {
    }

    /** After every event (after the run's own checks). */
    default void check(EngineSimulation sim) {
    }

    /**
     * Whether {@code a}'s belief that it holds may be stale: the run's owners'-view exclusion then does not count it
     * (the model checks instead that the server does not count it either, and that the owner is told in time).
     */
    default boolean mayBeStale(EngineSimulation sim, EngineSimulation.Actor a) {
        return false;
    }

    /**
     * Whether the fair waiter {@code a} may have lost its place in the server's queue to the fault (its attempts
     * could not reach the server), so that owners who called after it may be served first.
     */
    default boolean outOfLine(EngineSimulation sim, EngineSimulation.Actor a) {
        return false;
    }

    /** Whether the model's fault may make a lease run out on the server (a run without network faults then may too). */
    default boolean endsLeases() {
        return false;
    }

    /** What the fault may add to the run's timing bounds (a wait's end, a wake-up, an orphan's clean-up). */
    default long slackNanos() {
        return 0;
    }

    /** The model in a run's first trace line and the system properties that replay it. */
    default String describe() {
        return "";
    }
}
