package io.latchkey.testing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.function.LongFunction;

/**
 * The frame of a deterministic simulation: one seeded random source, a virtual clock in nanoseconds, tasks that run
 * in the order of their virtual time (ties in the order they were scheduled), a {@link #check()} after every task,
 * the first failure and the last lines of a trace. One seed is one reproducible history; {@link #failingSeeds} runs
 * many and names the property that replays a failing one alone.
 */
public abstract class Simulation {

    /** One millisecond of the virtual clock. */
    public static final long MS = 1_000_000L;

    /** The seed of this history. */
    protected final long seed;
    /** Every random choice of the history comes from here, in a fixed order. */
    protected final Random rng;
    /** The virtual time of the task running now, in nanoseconds. */
    protected long now;

    private final List<String> trace = new ArrayList<>();
    private final PriorityQueue<long[]> events = new PriorityQueue<>(Comparator.<long[]>comparingLong(e -> e[0])
            .thenComparingLong(e -> e[1]));
    private final Map<Long, Runnable> tasks = new HashMap<>();
    private long seq;
    private long executed;
    private String failure;

    protected Simulation(long seed) {
        this.seed = seed;
        this.rng = new Random(seed);
    }

    /** {@return null if every check held through the history, else {@link #report()}} */
    public abstract String run();

    /** The invariants, checked after every task: call {@link #fail} for the first one that breaks. */
    protected abstract void check();

    /** Runs {@code task} {@code delay} nanoseconds from now (at once if negative). */
    protected final void at(long delay, Runnable task) {
        long id = seq++;
        tasks.put(id, task);
        events.add(new long[] {now + Math.max(0, delay), id});
    }

    /** Runs the tasks due by {@code until}, each followed by {@link #check()}, and stops early at a failure. */
    protected final void runUntil(long until) {
        while (!events.isEmpty() && events.peek()[0] <= until && failure == null) {
            long[] e = events.poll();
            now = e[0];
            executed++;
            tasks.remove(e[1]).run();
            check();
        }
        now = Math.max(now, until);
    }

    /** Records the first failure (later ones are consequences). */
    protected final void fail(String what) {
        if (failure == null) {
            failure = what;
            trace("FAILED: " + what);
        }
    }

    /** Whether a check failed. */
    protected final boolean failed() {
        return failure != null;
    }

    /** Adds a line at the current virtual time; the trace keeps the last 200–400 lines. */
    protected final void trace(String line) {
        trace.add(String.format("%9.3f ms %s", now / 1e6, line));
        if (trace.size() > 400) {
            trace.subList(0, 200).clear();
        }
    }

    /** {@return null without a failure, else the seed, how to replay it, the failure and the trace's last 60 lines} */
    protected final String report() {
        return failure == null ? null : "seed " + seed + " (-Dlatchkey.sim.seed=" + seed + "): " + failure + "\n  "
                + String.join("\n  ", trace.subList(Math.max(0, trace.size() - 60), trace.size()));
    }

    /** {@return how many tasks ran} */
    public final long executed() {
        return executed;
    }

    /** {@return the trace's lines kept} */
    public final List<String> trace() {
        return List.copyOf(trace);
    }

    /**
     * Runs the seed {@code -Dlatchkey.sim.seed=N} alone if set, else {@code -Dlatchkey.sim.seeds} seeds (default
     * {@code defaultSeeds}) from {@code -Dlatchkey.sim.from} (default 1), stopping after three failures.
     *
     * @return the reports of the failing seeds; empty if every history held
     */
    public static List<String> failingSeeds(LongFunction<? extends Simulation> simulation, int defaultSeeds) {
        String one = System.getProperty("latchkey.sim.seed");
        long from = one != null ? Long.parseLong(one) : Long.getLong("latchkey.sim.from", 1);
        int count = one != null ? 1 : Integer.getInteger("latchkey.sim.seeds", defaultSeeds);
        List<String> failures = new ArrayList<>();
        for (long seed = from; seed < from + count && failures.size() < 3; seed++) {
            String failure = simulation.apply(seed).run();
            if (failure != null) {
                failures.add(failure);
            }
        }
        return failures;
    }
}
