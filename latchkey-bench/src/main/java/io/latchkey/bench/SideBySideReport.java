package io.latchkey.bench;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Renders a finished {@link SideBySide} as Markdown: the throughput table with ratios and targets, the same runs
 * by median latency, and where each side's time goes per cycle.
 */
final class SideBySideReport {

    private final BenchOptions options;
    private final Contender ours;
    private final Contender theirs;
    private final Contender limit;
    private final boolean serverSide;
    private final SideBySide.Targets targets;
    private final Map<String, List<SideBySide.Run>> runs;
    private final Map<String, Map<String, Double>> roundTrips;

    SideBySideReport(BenchOptions options, Contender ours, Contender theirs, Contender limit, boolean serverSide,
            SideBySide.Targets targets, Map<String, List<SideBySide.Run>> runs,
            Map<String, Map<String, Double>> roundTrips) {
        this.options = options;
        this.ours = ours;
        this.theirs = theirs;
        this.limit = limit;
        this.serverSide = serverSide;
        this.targets = targets;
        this.runs = runs;
        this.roundTrips = roundTrips;
    }

    SideBySide.Report render(List<Scenario> scenarios, Set<Integer> limitThreads) {
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
            Cell l = limit != null && !s.contended() ? cell(limit, SideBySide.limitScenario(s.threads())) : null;
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
                Cell l = cell(limit, SideBySide.limitScenario(threads));
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
                md.append(" | ").append(latencyRatio(cell(limit, SideBySide.limitScenario(s.threads())), a));
            }
            md.append(" |\n");
        }
        md.append('\n');
        md.append("Where the time goes, per cycle: **round trips** = commands the client sent "
                + "(`MONITOR`, in a separate 1 s pass so that the measured runs are not slowed); **client CPU** = "
                + "CPU time of the whole benchmark JVM (callers, I/O threads, timers, GC) and **allocated** = bytes "
                + "allocated by all its threads, **thread switches** = voluntary context switches of all its threads "
                + "(each time a thread parks to wait for another: hand-offs, which on a busy machine each wait for "
                + "a free core), all three over the whole run, warm-up included (median of the repeats); **server executed** = every command the server ran, including those called inside Lua "
                + "scripts (`INFO commandstats` delta of the last repeat); **server CPU** = the server process's CPU time "
                + "(`INFO cpu`, user + system, all its threads) per cycle over the whole run, warm-up included (median of "
                + "the repeats; for " + ours.name() + " also ÷ " + theirs.name() + "'s, the median of per-repeat ratios: other "
                + "load on the machine does not run on the server). Throughput moves with the machine's load; "
                + "CPU and allocation per cycle hardly do.\n\n");
        md.append("| scenario | side | round trips | client CPU µs | allocated KiB | thread switches | server CPU µs "
                + "| server executed |\n").append("|---|---|---|---:|---:|---:|---:|---|\n");
        for (Scenario s : scenarios) {
            costRow(md, s.label(), ours, s);
            costRow(md, "", theirs, s);
            if (limit != null && !s.contended()) {
                costRow(md, "", limit, SideBySide.limitScenario(s.threads()));
            }
        }
        return new SideBySide.Report(md.toString(), allMet && !failed, failed);
    }

    private void costRow(StringBuilder md, String label, Contender side, Scenario s) {
        Cell c = cell(side, s);
        md.append("| ").append(label).append(" | ").append(side == limit ? "limit" : side.name()).append(" | ")
                .append(roundTrips(side, s)).append(" | ").append(c.cpuMicros()).append(" | ").append(c.allocatedKib())
                .append(" | ").append(c.switches()).append(" | ").append(c.serverCpu())
                .append(side == ours ? serverCpuRatio(c, cell(theirs, s)) : "").append(" | ").append(c.commands())
                .append(" |\n");
    }

    /** {@code slower}'s median p50 ÷ {@code faster}'s, formatted: how many times shorter the faster side's cycle is. */
    private static String latencyRatio(Cell slower, Cell faster) {
        double a = slower.p50Median();
        double b = faster.p50Median();
        return Double.isNaN(a) || Double.isNaN(b) || b <= 0 ? "—" : String.format("%.2f×", a / b);
    }

    /** {@code " (0.42×)"}: the median over repeats of ours ÷ theirs server CPU per cycle; empty if unknown. */
    private static String serverCpuRatio(Cell a, Cell b) {
        List<Double> ratios = new ArrayList<>();
        for (int i = 0; i < Math.min(a.runs().size(), b.runs().size()); i++) {
            ratios.add(a.runs().get(i).serverCpuMicrosPerCycle() / b.runs().get(i).serverCpuMicrosPerCycle());
        }
        double r = medianOf(ratios);
        return Double.isNaN(r) || Double.isInfinite(r) ? "" : String.format(" (%.2f×)", r);
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
        return new Cell(runs.getOrDefault(SideBySide.key(contender, s), List.of()));
    }

    static String micros(long nanos) {
        if (nanos < 0) {
            return "—";
        }
        double us = nanos / 1000.0;
        return us >= 100 ? String.format("%,.0f", us) : String.format("%.1f", us);
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    private String roundTrips(Contender contender, Scenario scenario) {
        Map<String, Double> perCycle = roundTrips.get(SideBySide.key(contender, scenario));
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

    /** All repeats of one contender on one row. */
    private record Cell(List<SideBySide.Run> runs) {

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

        String serverCpu() {
            double v = medianOf(runs.stream().map(SideBySide.Run::serverCpuMicrosPerCycle).toList());
            return runs.isEmpty() || Double.isNaN(v) ? "—" : String.format("%.1f", v);
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
}
