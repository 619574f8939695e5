package io.latchkey.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
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

    public Report run(List<Scenario> scenarios) throws InterruptedException {
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
        return report(scenarios, limitThreads);
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

    private static Scenario limitScenario(int threads) {
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

    private String roundTrips(Contender contender, Scenario scenario) {
        Map<String, Double> perCycle = roundTrips.get(key(contender, scenario));
        if (perCycle == null) {
            return "—";
        }
        double total = perCycle.values().stream().mapToDouble(Double::doubleValue).sum();
        List<String> parts = new ArrayList<>();
        perCycle.entrySet().stream().filter(e -> e.getValue() >= 0.005)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> parts.add(String.format("%s %.2f", e.getKey(), e.getValue())));
        return String.format("**%.2f**", total) + (parts.isEmpty() ? "" : " (" + String.join(" · ", parts) + ")");
    }

    private void measure(Contender contender, Scenario scenario, int repeat, int index, int total)
            throws InterruptedException {
        String runId = Long.toString(System.nanoTime(), 36) + "-" + repeat;
        Map<String, Long> before = snapshot();
        TimedRun.RunResult result = new TimedRun(contender.name().toLowerCase().replaceAll("[^a-z0-9]+", "-"),
                scenario.threads(), options.warmup(), options.measure()).run(contender.cycles(scenario, runId));
        Map<String, Long> after = snapshot();
        Map<String, Double> perCycle = perCycle(before, after, result.totalCycles());
        runs.computeIfAbsent(key(contender, scenario), k -> new ArrayList<>()).add(new Run(result, perCycle));
        System.err.printf("[%d/%d] %-9s %-44s %s%n", index, total, contender == limit ? "limit" : contender.name(),
                rowLabel(contender, scenario),
                result.ok() ? String.format("%,.0f cycles/s, p50 %s µs, p99 %s µs", result.cyclesPerSecond(),
                        micros(result.p50Nanos()), micros(result.p99Nanos())) : "FAILED: " + result.error());
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

    private static String key(Contender contender, Scenario scenario) {
        return contender.name() + "|" + scenario.threads() + "|" + scenario.contended() + "|" + scenario.mode();
    }

    private Report report(List<Scenario> scenarios, Set<Integer> limitThreads) {
        StringBuilder md = new StringBuilder();
        boolean allMet = true;
        boolean failed = false;
        double worstSpread = 0;
        md.append("| scenario | ").append(ours.name()).append(" cycles/s | ").append(theirs.name())
                .append(" cycles/s | ").append(ours.name()).append(" ÷ ").append(theirs.name());
        if (limit != null) {
            md.append(" | ").append(ours.name()).append(" ÷ limit");
        }
        md.append(" | ").append(ours.name()).append(" p50 / p99 µs | ").append(theirs.name())
                .append(" p50 / p99 µs | targets |\n");
        md.append("|---|---:|---:|---:|").append(limit != null ? "---:|" : "").append("---:|---:|---|\n");
        for (Scenario s : scenarios) {
            Cell a = cell(ours, s);
            Cell b = cell(theirs, s);
            Cell l = limit != null && !s.contended() ? cell(limit, limitScenario(s.threads())) : null;
            failed |= a.failed() || b.failed();
            worstSpread = Math.max(worstSpread, Math.max(a.spread(), b.spread()));
            double ratio = pairedRatio(a, b);
            double ofLimit = l != null ? pairedRatio(a, l) : Double.NaN;
            List<String> verdicts = new ArrayList<>();
            double wanted = s.contended() ? targets.contendedRatio() : targets.uncontendedRatio();
            if (wanted > 0) {
                boolean met = ratio >= wanted;
                allMet &= met;
                verdicts.add(String.format("≥ %s× %s", trim(wanted), met ? "✅" : "❌"));
            }
            if (!s.contended() && targets.ofLimit() > 0 && l != null) {
                boolean met = ofLimit >= targets.ofLimit();
                allMet &= met;
                verdicts.add(String.format("≥ %.0f %% of limit %s", targets.ofLimit() * 100, met ? "✅" : "❌"));
            }
            md.append("| ").append(s.label()).append(" | ").append(a.throughput()).append(" | ")
                    .append(b.throughput()).append(" | ").append(Double.isNaN(ratio) ? "—" : String.format("%.2f×", ratio));
            if (limit != null) {
                md.append(" | ").append(Double.isNaN(ofLimit) ? "—" : String.format("%.0f %%", ofLimit * 100));
            }
            md.append(" | ").append(a.latency()).append(" | ").append(b.latency()).append(" | ")
                    .append(String.join(", ", verdicts)).append(" |\n");
        }
        if (limit != null) {
            for (int threads : limitThreads) {
                Cell l = cell(limit, limitScenario(threads));
                failed |= l.failed();
                worstSpread = Math.max(worstSpread, l.spread());
                md.append("| **limit** (").append(limit.name()).append("), ").append(threads).append(" thread")
                        .append(threads == 1 ? "" : "s").append(" | ").append(l.throughput()).append(" | — | — | 100 % | ")
                        .append(l.latency()).append(" | — | |\n");
            }
        }
        md.append('\n');
        md.append("Ratios are medians of per-repeat ratios (each repeat runs both sides back to back), so slow drifts "
                + "in machine load cancel out.");
        if (options.repeats() > 1) {
            md.append(String.format(" Noise: the widest spread between repeats of one cell was ±%.0f %% of its "
                    + "median (cells show ±half the max−min spread where it exceeds 5 %%).", worstSpread * 50));
        }
        md.append("\n\n");
        md.append("The same runs by **median cycle latency** (median over repeats of each run's p50). On a machine "
                + "shared with other work, bursts of foreign load land on random runs and drag their mean-based "
                + "throughput down; the median cycle shows what the client itself costs. Contended rows are left out: "
                + "there the median only shows how unfair a lock is (a thread that re-takes the lock it just released "
                + "has a short cycle, the others wait; see the p99).\n\n");
        md.append("| scenario | ").append(theirs.name()).append(" p50 ÷ ").append(ours.name()).append(" p50");
        if (limit != null) {
            md.append(" | limit p50 ÷ ").append(ours.name()).append(" p50");
        }
        md.append(" |\n|---|---:|").append(limit != null ? "---:|" : "").append('\n');
        for (Scenario s : scenarios) {
            if (s.contended()) {
                continue;
            }
            Cell a = cell(ours, s);
            Cell b = cell(theirs, s);
            md.append("| ").append(s.label()).append(" | ").append(latencyRatio(b, a));
            if (limit != null) {
                md.append(" | ").append(latencyRatio(cell(limit, limitScenario(s.threads())), a));
            }
            md.append(" |\n");
        }
        md.append('\n');
        md.append("Where the time goes, per lock+unlock cycle: **round trips** = commands the client sent "
                + "(`MONITOR`, in a separate 1 s pass so that the measured runs are not slowed); **client CPU** = "
                + "CPU time of the whole benchmark JVM (callers, I/O threads, timers, GC) and **allocated** = bytes "
                + "allocated by all its threads, **thread switches** = voluntary context switches of all its threads "
                + "(each time a thread parks to wait for another: hand-offs, which on a busy machine each wait for "
                + "a free core), all three over the whole run, warm-up included (median of the repeats); **server executed** = every command the server ran, including those called inside Lua "
                + "scripts (`INFO commandstats` delta of the last repeat). Throughput moves with the machine's load; "
                + "CPU and allocation per cycle hardly do.\n\n");
        md.append("| scenario | side | round trips | client CPU µs | allocated KiB | thread switches | server executed |\n")
                .append("|---|---|---|---:|---:|---:|---|\n");
        for (Scenario s : scenarios) {
            costRow(md, s.label(), ours, s);
            costRow(md, "", theirs, s);
            if (limit != null && !s.contended()) {
                costRow(md, "", limit, limitScenario(s.threads()));
            }
        }
        return new Report(md.toString(), allMet && !failed, failed);
    }

    private void costRow(StringBuilder md, String label, Contender side, Scenario s) {
        Cell c = cell(side, s);
        md.append("| ").append(label).append(" | ").append(side == limit ? "limit" : side.name()).append(" | ")
                .append(roundTrips(side, s)).append(" | ").append(c.cpuMicros()).append(" | ").append(c.allocatedKib())
                .append(" | ").append(c.switches()).append(" | ").append(c.commands()).append(" |\n");
    }

    /** {@code slower}'s median p50 ÷ {@code faster}'s, formatted: how many times shorter the faster side's cycle is. */
    private static String latencyRatio(Cell slower, Cell faster) {
        double a = slower.p50Median();
        double b = faster.p50Median();
        return Double.isNaN(a) || Double.isNaN(b) || b <= 0 ? "—" : String.format("%.2f×", a / b);
    }

    /** The median over repeats of ours ÷ theirs within the same repeat. */
    private static double pairedRatio(Cell a, Cell b) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(a.runs().size(), b.runs().size()); i++) {
            TimedRun.RunResult x = a.runs().get(i).result();
            TimedRun.RunResult y = b.runs().get(i).result();
            if (x.ok() && y.ok() && y.cyclesPerSecond() > 0) {
                ratios.add(x.cyclesPerSecond() / y.cyclesPerSecond());
            }
        }
        return a.ok() && b.ok() ? medianOf(ratios) : Double.NaN;
    }

    private static double medianOf(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.removeIf(v -> Double.isNaN(v));
        Collections.sort(sorted);
        int n = sorted.size();
        if (n == 0) {
            return Double.NaN;
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private Cell cell(Contender contender, Scenario s) {
        return new Cell(runs.getOrDefault(key(contender, s), List.of()));
    }

    private static String micros(long nanos) {
        if (nanos < 0) {
            return "—";
        }
        double us = nanos / 1000.0;
        return us >= 100 ? String.format("%,.0f", us) : String.format("%.1f", us);
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private record Run(TimedRun.RunResult result, Map<String, Double> commandsPerCycle) {
    }

    /** All repeats of one contender on one row. */
    private record Cell(List<Run> runs) {

        boolean ok() {
            return !runs.isEmpty() && runs.stream().allMatch(r -> r.result().ok());
        }

        boolean failed() {
            return runs.stream().anyMatch(r -> !r.result().ok());
        }

        double median() {
            return medianOf(runs.stream().map(r -> r.result().cyclesPerSecond()).toList());
        }

        double spread() {
            if (!ok() || runs.size() < 2) {
                return 0;
            }
            List<Double> v = runs.stream().map(r -> r.result().cyclesPerSecond()).toList();
            return (Collections.max(v) - Collections.min(v)) / median();
        }

        String throughput() {
            if (runs.isEmpty()) {
                return "—";
            }
            if (!ok()) {
                Throwable e = runs.stream().filter(r -> !r.result().ok()).findFirst().orElseThrow().result().error();
                return "**failed**: " + e.getClass().getSimpleName() + ": "
                        + String.valueOf(e.getMessage()).replace('|', '/').replace('\n', ' ');
            }
            double spread = spread();
            return String.format("%,.0f", median()) + (spread > 0.10 ? String.format(" ±%.0f %%", spread * 50) : "");
        }

        String cpuMicros() {
            double v = medianOf(runs.stream().map(r -> r.result().cpuNanosPerCycle()).toList());
            return runs.isEmpty() || Double.isNaN(v) ? "—" : String.format("%.0f", v / 1000);
        }

        String allocatedKib() {
            double v = medianOf(runs.stream().map(r -> r.result().allocatedBytesPerCycle()).toList());
            return runs.isEmpty() || Double.isNaN(v) ? "—" : String.format("%.1f", v / 1024);
        }

        String switches() {
            double v = medianOf(runs.stream().map(r -> r.result().contextSwitchesPerCycle()).toList());
            return runs.isEmpty() || Double.isNaN(v) ? "—" : String.format("%.1f", v);
        }

        double p50Median() {
            return ok() ? medianOf(runs.stream().map(r -> (double) r.result().p50Nanos()).toList()) : Double.NaN;
        }

        String latency() {
            if (!ok()) {
                return "—";
            }
            long p50 = (long) medianOf(runs.stream().map(r -> (double) r.result().p50Nanos()).toList());
            long p99 = (long) medianOf(runs.stream().map(r -> (double) r.result().p99Nanos()).toList());
            return micros(p50) + " / " + micros(p99);
        }

        String commands() {
            if (runs.isEmpty() || runs.get(runs.size() - 1).commandsPerCycle().isEmpty()) {
                return "—";
            }
            List<String> parts = new ArrayList<>();
            runs.get(runs.size() - 1).commandsPerCycle().entrySet().stream()
                    .filter(e -> e.getValue() >= 0.005)
                    .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                    .forEach(e -> parts.add(String.format("%s %.2f", e.getKey(), e.getValue())));
            return parts.isEmpty() ? "—" : String.join(" · ", parts);
        }
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
