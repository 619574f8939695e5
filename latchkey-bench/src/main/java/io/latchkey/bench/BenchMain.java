package io.latchkey.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Runs the selected side-by-side comparisons (by default Redis: Latchkey vs Redisson) and prints one Markdown
 * report to standard output, progress to standard error. Exits 0 when every run completed (whether or not the
 * targets were met), 1 when a run failed, 2 for bad flags.
 */
public final class BenchMain {

    private BenchMain() {
    }

    public static void main(String[] args) throws Exception {
        Locale.setDefault(Locale.ROOT);
        if (args.length > 0 && args[0].equals("jmh")) {
            // JMH's own runner with the rest of the arguments, e.g. "jmh RedisLockCycleBenchmark -prof gc".
            org.openjdk.jmh.Main.main(java.util.Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        BenchOptions options;
        try {
            options = BenchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        if (options.help()) {
            System.out.println(BenchOptions.USAGE);
            return;
        }
        int status;
        try {
            SideBySide.Report report = run(options);
            System.out.print(report.markdown());
            System.out.flush();
            if (options.out() != null) {
                Files.writeString(Path.of(options.out()), report.markdown());
            }
            status = report.failed() ? 1 : 0;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            status = 2;
        } catch (Exception e) {
            e.printStackTrace();
            status = 1;
        }
        // Client libraries leave non-daemon threads behind for a moment after close; do not wait for them.
        System.exit(status);
    }

    /** Runs the suites {@code options} select and returns the whole report. */
    public static SideBySide.Report run(BenchOptions options) throws Exception {
        Map<String, ComparisonSuite> available = Suites.discover();
        List<ComparisonSuite> selected = new ArrayList<>();
        for (String name : options.suites()) {
            if (name.equals("all")) {
                selected.addAll(available.values());
            } else if (available.containsKey(name)) {
                selected.add(available.get(name));
            } else {
                throw new IllegalArgumentException(String.format(
                        "no benchmark suite named '%s' on the class path; available: %s", name, available.keySet()));
            }
        }
        StringBuilder md = new StringBuilder();
        md.append("## Benchmark\n\n");
        md.append(String.format("Run %s on %d CPU cores (load average %s at start), %s %s; %s.%n%n",
                Instant.now().truncatedTo(ChronoUnit.SECONDS), Runtime.getRuntime().availableProcessors(),
                loadAverage(), System.getProperty("java.vm.name"), System.getProperty("java.version"),
                options.describe()));
        boolean failed = false;
        boolean met = true;
        for (ComparisonSuite suite : selected.stream().distinct().toList()) {
            System.err.println("== benchmark suite " + suite.name());
            SideBySide.Report report = suite.run(options);
            md.append(report.markdown()).append('\n');
            failed |= report.failed();
            met &= report.targetsMet();
        }
        return new SideBySide.Report(md.toString(), met, failed);
    }

    private static String loadAverage() {
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        return load < 0 ? "unknown" : String.format("%.2f", load);
    }

}
