package io.latchkey.core.internal;

import io.latchkey.core.TimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A clock that jumps on one client (client 0) while the others go on: one to three steps forward or back, of a few
 * milliseconds to ten seconds, as a stepped clock or a migrated virtual machine shows them. Either the jump moves the
 * client's timers with it, as a {@code ScheduledThreadPoolExecutor}'s absolute trigger times on that clock do (a
 * forward step makes every pending renewal, deadline and lease end due at once, a backward one delays them all), or
 * only the engine's {@link TimeSource} jumps and the timers keep real time (a seeded choice).
 *
 * <p>What must hold all the same: fencing tokens only grow and no two owners hold an exclusive lock at the server's
 * view; every lease the server ended is told to its holder, within the backward steps plus a renewal round; a lease
 * told lost never turns valid again; waits, wake-ups and clean-ups end within the run's bounds plus the backward
 * steps. What a backward step makes unavoidable is excused: the client reads its lease's end on its own clock, so for
 * up to the step it may believe in a lease the server already ended (the run's owners'-view exclusion does not count
 * such a stale belief; the server's view still must).
 */
final class SimClockJumps implements SimFaultModel {

    static final int VICTIM = 0;

    private final Random rng;
    /** Whether the victim's timers move with its clock. */
    private final boolean timersFollow;
    /** The steps: {time from the start, signed step}. */
    private final List<long[]> steps = new ArrayList<>();
    private final long backwards;
    private long offset;
    private boolean steppedBack;
    private long lastBackStepAt = Long.MIN_VALUE;
    private SimScheduler.Timers timers;
    private TimeSource clock;
    private SimLeaseChecks checks;

    SimClockJumps(long seed) {
        rng = new Random(seed * 0x9E3779B97F4A7C15L + 17);
        timersFollow = rng.nextBoolean();
        long back = 0;
        for (int i = 1 + rng.nextInt(3); i > 0; i--) {
            long size = rng.nextBoolean() ? (1 + rng.nextInt(500)) * EngineSimulation.MS
                    : (1 + rng.nextInt(10_000)) * EngineSimulation.MS;
            long step = rng.nextBoolean() ? size : -size;
            steps.add(new long[] {rng.nextInt(5_000) * EngineSimulation.MS, step});
            back += Math.max(0, -step);
        }
        backwards = back;
    }

    @Override
    public TimeSource clock(EngineSimulation sim, int client) {
        if (client != VICTIM) {
            return sim.sched;
        }
        if (clock == null) {
            clock = () -> sim.sched.nanoTime() + offset;
        }
        return clock;
    }

    @Override
    public TimeSource timerClock(EngineSimulation sim, int client) {
        return timersFollow ? clock(sim, client) : sim.sched;
    }

    @Override
    public SimScheduler.Timers timers(EngineSimulation sim, int client) {
        SimScheduler.Timers t = sim.sched.timers();
        if (client == VICTIM) {
            timers = t;
        }
        return t;
    }

    @Override
    public void start(EngineSimulation sim) {
        long round = sim.options.renewalInterval().toNanos() + sim.remoteTimeout;
        checks = new SimLeaseChecks(backwards + round + 4 * sim.faults.maxDelayNanos() + 200 * EngineSimulation.MS);
        for (long[] s : steps) {
            sim.sched.at(s[0], () -> {
                sim.trace(String.format("c%d's clock jumps %+d ms%s", VICTIM, s[1] / EngineSimulation.MS,
                        timersFollow ? ", its timers with it" : ""));
                offset += s[1];
                if (s[1] < 0) {
                    steppedBack = true;
                    lastBackStepAt = sim.sched.nanoTime();
                }
                if (timersFollow) {
                    timers.shift(s[1]);
                }
            });
        }
    }

    @Override
    public void check(EngineSimulation sim) {
        checks.check(sim);
    }

    @Override
    public boolean mayBeStale(EngineSimulation sim, EngineSimulation.Actor a) {
        if (a.client.id != VICTIM || !steppedBack) {
            return false;
        }
        Hold h = SimLeaseChecks.holdOf(a);
        return h != null && !SimLeaseChecks.onServer(sim, h);
    }

    /**
     * A fair waiter of the victim that waited through a backward step of timers that follow the clock: its
     * re-checks, which keep its queue entry live on the server, stalled for the step, so the server dropped the
     * entry as a crashed waiter's and served later callers first.
     */
    @Override
    public boolean outOfLine(EngineSimulation sim, EngineSimulation.Actor a) {
        return a.client.id == VICTIM && timersFollow && a.calledAt <= lastBackStepAt;
    }

    @Override
    public boolean endsLeases() {
        // delayed renewals (timers that follow a clock that went back) may let a lease run out on the server
        return true;
    }

    @Override
    public long slackNanos() {
        return backwards;
    }

    @Override
    public String describe() {
        StringBuilder sb = new StringBuilder(" -Dlatchkey.sim.model=clock (c0's clock jumps");
        for (long[] s : steps) {
            sb.append(String.format(" %+d ms at %d ms", s[1] / EngineSimulation.MS, s[0] / EngineSimulation.MS));
        }
        return sb.append(timersFollow ? ", timers follow)" : ", timers keep real time)").toString();
    }
}
