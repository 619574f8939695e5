package io.latchkey.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Runs each scenario for two contenders (ours and theirs) against the same server, interleaved so that machine
 * noise hits both sides alike: within every repeat each row runs ours then theirs, or theirs then ours, alternating.
 * An optional "limit" contender (raw client, the fewest round trips a lock can cost) runs once per uncontended
 * thread count, and the report gives ours as a share of it. The median of the repeats is reported.
 */
public final class SideBySide {

    /**
     * Records the commands clients send (not those run inside server-side scripts), by name: round trips. May slow
     * the server, so it runs only in a short profiling pass after the measured runs.
     */
    public interface CommandTrace {
        Recording start() throws Exception;

        /** A running recording. */
        interface Recording {
            /** Stops recording; returns command name → times sent. */
            Map<String, Long> stop() throws Exception;
        }
    }

    /** Server-side command counters (Redis {@code INFO commandstats}), read before and after each run. */
    public interface ServerCounters {
        Map<String, Long> snapshot() throws Exception;

        /** The server process's CPU time so far (user + system), µs; {@code NaN} if this server does not say. */
        default double cpuMicros() throws Exception {
            return Double.NaN;
        }
    }

    /**
     * Pass marks: uncontended rows must reach {@code uncontendedRatio}× theirs and {@code ofLimit} of the limit,
     * contended rows {@code contendedRatio}× theirs. Zero means "no target".
     */
    public record Targets(double uncontendedRatio, double ofLimit, double contendedRatio) {
    }

    private final BenchOptions options;
    private final Contender ours;
    private final Contender theirs;
    private final Contender limit;
    private final ServerCounters counters;
    private final CommandTrace trace;
    private final Targets targets;
    private final Map<String, List<Run>> runs = new LinkedHashMap<>();
    private final Map<String, Map<String, Double>> roundTrips = new LinkedHashMap<>();

    public SideBySide(BenchOptions options, Contender ours, Contender theirs, Contender limit,
            ServerCounters counters, CommandTrace trace, Targets targets) {
        this.options = Objects.requireNonNull(options, "options");
        this.ours = Objects.requireNonNull(ours, "ours");
        this.theirs = Objects.requireNonNull(theirs, "theirs");
        this.limit = limit;
        this.counters = counters;
        this.trace = trace;
        this.targets = Objects.requireNonNull(targets, "targets");
    }

    public Report run(List<Scenario> all) throws InterruptedException {
        List<Scenario> scenarios = all.stream().filter(s -> options.selects(s.label())).toList();
        if (scenarios.isEmpty()) {
            return new Report("(no row matches --rows " + String.join(",", options.rows()) + ")\n", true, false);
        }
        Set<Integer> limitThreads = new LinkedHashSet<>();
        if (limit != null) {
            scenarios.stream().filter(s -> !s.contended()).forEach(s -> limitThreads.add(s.threads()));
        }
        warmUp(scenarios, limitThreads);
        int total = options.repeats() * (scenarios.size() * 2 + limitThreads.size());
        int done = 0;
        for (int r = 0; r < options.repeats(); r++) {
            Set<Integer> limitDone = new LinkedHashSet<>();
            for (int i = 0; i < scenarios.size(); i++) {
                Scenario s = scenarios.get(i);
                // The limit runs next to the first uncontended row of its thread count, so that it meets the
                // same machine load as the rows it is compared with.
                if (limitThreads.contains(s.threads()) && !s.contended() && limitDone.add(s.threads())) {
                    measure(limit, limitScenario(s.threads()), r, ++done, total);
                }
                boolean oursFirst = (r + i) % 2 == 0;
                measure(oursFirst ? ours : theirs, s, r, ++done, total);
                measure(oursFirst ? theirs : ours, s, r, ++done, total);
            }
        }
        if (trace != null) {
            for (Scenario s : scenarios) {
                profile(ours, s);
                profile(theirs, s);
            }
            for (int threads : limitThreads) {
                profile(limit, limitScenario(threads));
            }
        }
        return new SideBySideReport(options, ours, theirs, limit, counters != null || trace != null, targets, runs,
                roundTrips).render(scenarios, limitThreads);
    }

    /**
     * One unrecorded pass over every row and side before the first repeat, so that the first measured row does not
     * pay for class loading, JIT compilation and connection set-up that later rows get for free.
     */
    private void warmUp(List<Scenario> scenarios, Set<Integer> limitThreads) throws InterruptedException {
        Duration each = options.warmup();
        if (each.isZero()) {
            return;
        }
        System.err.printf("warming up every row and side for %d ms each%n", each.toMillis());
        List<Contender> sides = limit == null ? List.of(ours, theirs) : List.of(ours, theirs, limit);
        for (Contender side : sides) {
            for (Scenario s : side == limit ? limitThreads.stream().map(SideBySide::limitScenario).toList() : scenarios) {
                new TimedRun("warmup", s.threads(), Duration.ZERO, each).run(side.cycles(s, "warmup-" + System.nanoTime()));
            }
        }
    }

    static Scenario limitScenario(int threads) {
        return new Scenario(threads, false, LeaseMode.FIXED);
    }

    /** A short extra run with the trace on, to count round trips per cycle without slowing the measured runs. */
    private void profile(Contender contender, Scenario scenario) throws InterruptedException {
        String runId = Long.toString(System.nanoTime(), 36) + "-trace";
        TimedRun run = new TimedRun(contender.name().toLowerCase().replaceAll("[^a-z0-9]+", "-") + "-trace",
                scenario.threads(), Duration.ZERO,
                options.measure().compareTo(Duration.ofSeconds(1)) < 0 ? options.measure() : Duration.ofSeconds(1));
        Cycle.PerThread cycles = contender.cycles(scenario, runId);
        try {
            CommandTrace.Recording recording = trace.start();
            TimedRun.RunResult result = run.run(cycles);
            Map<String, Long> sent = recording.stop();
            if (result.ok() && result.totalCycles() > 0) {
                Map<String, Double> perCycle = new TreeMap<>();
                sent.forEach((command, n) -> perCycle.put(command, (double) n / result.totalCycles()));
                roundTrips.put(key(contender, scenario), perCycle);
            }
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            System.err.println("round-trip trace of " + contender.name() + " failed: " + e);
        }
    }

    private void measure(Contender contender, Scenario scenario, int repeat, int index, int total)
            throws InterruptedException {
        String runId = Long.toString(System.nanoTime(), 36) + "-" + repeat;
        Map<String, Long> before = snapshot();
        double cpuBefore = serverCpu();
        TimedRun.RunResult result = new TimedRun(contender.name().toLowerCase().replaceAll("[^a-z0-9]+", "-"),
                scenario.threads(), options.warmup(), options.measure()).run(contender.cycles(scenario, runId));
        double cpuAfter = serverCpu();
        Map<String, Long> after = snapshot();
        Map<String, Double> perCycle = perCycle(before, after, result.totalCycles());
        double serverCpuPerCycle = result.totalCycles() > 0 ? (cpuAfter - cpuBefore) / result.totalCycles() : Double.NaN;
        runs.computeIfAbsent(key(contender, scenario), k -> new ArrayList<>())
                .add(new Run(result, perCycle, serverCpuPerCycle));
        System.err.printf("[%d/%d] %-9s %-44s %s%n", index, total, contender == limit ? "limit" : contender.name(),
                rowLabel(contender, scenario),
                result.ok() ? String.format("%,.0f cycles/s, p50 %s µs, p99 %s µs", result.cyclesPerSecond(),
                        SideBySideReport.micros(result.p50Nanos()), SideBySideReport.micros(result.p99Nanos())) : "FAILED: " + result.error());
    }

    private Map<String, Long> snapshot() {
        if (counters == null) {
            return Map.of();
        }
        try {
            return counters.snapshot();
        } catch (Exception e) {
            return Map.of();
        }
    }

    private double serverCpu() {
        try {
            return counters == null ? Double.NaN : counters.cpuMicros();
        } catch (Exception e) {
            return Double.NaN;
        }
    }

    private static Map<String, Double> perCycle(Map<String, Long> before, Map<String, Long> after, long cycles) {
        Map<String, Double> out = new TreeMap<>();
        if (cycles == 0) {
            return out;
        }
        after.forEach((command, count) -> {
            long delta = count - before.getOrDefault(command, 0L);
            if (delta > 0 && !command.equals("info")) {
                out.put(command, (double) delta / cycles);
            }
        });
        return out;
    }

    private String rowLabel(Contender contender, Scenario scenario) {
        return contender == limit ? limit.name() + ", " + scenario.threads() + " thread" + (scenario.threads() == 1 ? "" : "s")
                : scenario.label();
    }

    static String key(Contender contender, Scenario scenario) {
        return contender.name() + "|" + scenario.primitive() + "|" + scenario.threads() + "|" + scenario.contended() + "|" + scenario.mode();
    }

    /**
     * One measured run and what the server executed during it: commands, and its process's CPU µs per cycle (warm-up
     * included, as the client's; {@code NaN} if unknown).
     */
    record Run(TimedRun.RunResult result, Map<String, Double> commandsPerCycle, double serverCpuMicrosPerCycle) {
    }

    /**
     * A finished comparison.
     *
     * @param markdown the tables and notes, ready for a README
     * @param targetsMet every target met and no run failed
     * @param failed some run failed (an exception or a hung lock call)
     */
    public record Report(String markdown, boolean targetsMet, boolean failed) {
    }
}
