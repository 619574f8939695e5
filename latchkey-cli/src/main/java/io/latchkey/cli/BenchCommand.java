package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code latchkey bench URI}: lock+unlock cycles per second and their latency at a few thread counts, once with
 * every thread on its own lock name (what the backend costs per operation) and once with all threads on one name
 * (hand-off under contention).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure lock+unlock cycles/s and latency percentiles of a backend at a few thread counts, "
                + "on distinct lock names and on one shared name.")
final class BenchCommand implements Callable<Integer> {

    @Mixin
    GlobalOptions global;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "URI", description = "The backend, e.g. redis://localhost:6379 or mem://bench.")
    String uri;

    @Option(names = "--threads", split = ",", paramLabel = "N", defaultValue = "1,4,16",
            description = "Thread counts to measure (default: ${DEFAULT-VALUE}).")
    List<Integer> threads;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "2s",
            description = "Measured time per row (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--warmup", paramLabel = "DURATION", defaultValue = "500ms",
            description = "Unmeasured time before each row (default: ${DEFAULT-VALUE}).")
    Duration warmup;

    @Option(names = "--names", paramLabel = "MODE", defaultValue = "both",
            description = "distinct, shared or both (default: ${DEFAULT-VALUE}).")
    String names;

    @Option(names = "--report", paramLabel = "FILE",
            description = "Also write the rows to FILE: .csv (one line per row, latencies in microseconds) or .html "
                    + "(a self-contained page with the table and a chart).")
    Path report;

    @Option(names = "--no-progress", negatable = false, description = "No progress lines on stderr.")
    boolean noProgress;

    static final String[] HEADER = {"threads", "names", "cycles/s", "p50", "p90", "p99", "max"};

    /** Set by {@link #stop()} (Ctrl-C, SIGTERM): workers end their current cycle, which releases what they hold. */
    private volatile boolean stopping;
    /** Counted down once every worker is joined, the client closed and the output written. */
    private final CountDownLatch finished = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
        for (int t : threads) {
            if (t < 1 || t > 1024) {
                throw new CliException(CliException.USAGE, String.format("--threads must be 1..1024 but was %d", t));
            }
        }
        if (duration.isNegative() || duration.isZero() || warmup.isNegative()) {
            throw new CliException(CliException.USAGE, String.format(
                    "--duration must be positive and --warmup not negative but were %s and %s",
                    Durations.format(duration), Durations.format(warmup)));
        }
        List<Boolean> modes = new ArrayList<>();
        switch (names.toLowerCase(Locale.ROOT)) {
            case "distinct": modes.add(false); break;
            case "shared": modes.add(true); break;
            case "both": modes.add(false); modes.add(true); break;
            default: throw new CliException(CliException.USAGE, String.format(
                    "--names must be distinct, shared or both but was '%s'", names));
        }
        if (report != null) {
            OutputFiles.checkWritable(report, "--report", ".html", ".htm", ".csv");
        }
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String prefix = "latchkey-bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        LockClient client = Connector.open(uri, global.timeout);
        Thread hook = new Thread(this::stop, "latchkey-bench-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        List<BenchReport.Row> rows = new ArrayList<>();
        int total = modes.size() * threads.size();
        String setup = String.format("lock+unlock cycles on %s, %s per row after %s warm-up", Connector.describe(uri),
                Durations.format(duration), Durations.format(warmup));
        RuntimeException failure = null;
        try {
            out.println(setup);
            out.flush();
            rows:
            for (boolean shared : modes) {
                for (int n : threads) {
                    if (stopping) {
                        break rows;
                    }
                    String what = String.format("%d thread%s, %s", n, n == 1 ? "" : "s",
                            shared ? "one shared name" : "distinct names");
                    progress(err, String.format("[%d/%d] %s … ", rows.size() + 1, total, what));
                    BenchReport.Row row;
                    try {
                        row = measure(client, prefix, n, shared);
                    } catch (RuntimeException e) {
                        progressLine(err, "failed");
                        throw Connector.translate(uri, global.timeout, e);
                    }
                    if (row == null) {
                        progressLine(err, "cut short, not shown");
                        break rows;
                    }
                    rows.add(row);
                    progressLine(err, String.format(Locale.ROOT, "%,.0f cycles/s, p99 %s", row.cyclesPerSecond(),
                            Durations.latency(row.p99())));
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            try {
                finish(out, err, client, setup, rows, total);
            } finally {
                finished.countDown();
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException shuttingDown) {
                    // the hook is running: it waits for 'finished', counted down above
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return stopping ? INTERRUPTED : 0;
    }

    /** The exit code after Ctrl-C, as shells report a process ended by SIGINT. */
    static final int INTERRUPTED = 130;

    /**
     * What Ctrl-C (SIGINT) and SIGTERM run, as a JVM shutdown hook: ask the workers to stop after their current
     * cycle, then wait (bounded) until {@link #call} has joined them, printed the rows measured so far and closed
     * the client, so that no lock stays held until its lease runs out.
     */
    void stop() {
        stopping = true;
        try {
            finished.await(global.timeout.toMillis() + 5_000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void finish(PrintWriter out, PrintWriter err, LockClient client, String setup,
            List<BenchReport.Row> rows, int total) {
        try {
            client.close();
        } catch (RuntimeException e) {
            err.println("latchkey: closing the client failed: " + Secrets.mask(Connector.firstLine(
                    String.valueOf(e.getMessage()))));
        }
        if (!rows.isEmpty()) {
            TextTable table = new TextTable(HEADER).alignRight(0, 2, 3, 4, 5, 6);
            for (BenchReport.Row row : rows) {
                table.row(cells(row));
            }
            out.print(table.render());
            out.flush();
        }
        if (stopping) {
            err.printf("interrupted after %d of %d rows; every lock this run held is released%n", rows.size(), total);
            err.flush();
        }
        if (report != null && !rows.isEmpty()) {
            try {
                BenchReport.write(report, setup, rows, stopping);
                out.printf("report written to %s%n", report);
            } catch (java.io.IOException e) {
                err.printf("latchkey: could not write the report %s: %s%n", report, e);
            }
            out.flush();
        }
    }

    static String[] cells(BenchReport.Row row) {
        return new String[] {String.valueOf(row.threads()), row.names(),
            String.format(Locale.ROOT, "%,.0f", row.cyclesPerSecond()), Durations.latency(row.p50()),
            Durations.latency(row.p90()), Durations.latency(row.p99()), Durations.latency(row.max())};
    }

    private void progress(PrintWriter err, String text) {
        if (!noProgress) {
            err.print(text);
            err.flush();
        }
    }

    private void progressLine(PrintWriter err, String text) {
        if (!noProgress) {
            err.println(text);
            err.flush();
        }
    }

    /** One row; {@code null} if {@link #stop()} cut it short (every worker has released its lock by then). */
    private BenchReport.Row measure(LockClient client, String prefix, int threadCount, boolean shared)
            throws InterruptedException {
        long warmupNanos = warmup.toNanos();
        long measureNanos = duration.toNanos();
        List<Latencies> perThread = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<RuntimeException> failure = new AtomicReference<>();
        long[] cycles = new long[threadCount];
        for (int i = 0; i < threadCount; i++) {
            int index = i;
            Latencies latencies = new Latencies();
            perThread.add(latencies);
            DistributedLock lock = client.lock(prefix + (shared ? "shared" : "t" + i));
            Thread worker = new Thread(() -> {
                try {
                    start.await();
                    long begin = System.nanoTime();
                    long measureFrom = begin + warmupNanos;
                    long end = measureFrom + measureNanos;
                    long count = 0;
                    while (failure.get() == null && !stopping) {
                        long t0 = System.nanoTime();
                        if (t0 >= end) {
                            break;
                        }
                        lock.lock();
                        lock.unlock();
                        // join() below publishes the samples to the merging thread
                        if (t0 >= measureFrom) {
                            long took = System.nanoTime() - t0;
                            latencies.record(took);
                            count++;
                        }
                    }
                    cycles[index] = count;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    failure.compareAndSet(null, e);
                }
            }, "latchkey-bench-" + i);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        start.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        if (stopping) {
            return null;
        }
        long total = 0;
        for (long c : cycles) {
            total += c;
        }
        Latencies all = Latencies.merge(perThread);
        return new BenchReport.Row(threadCount, shared ? "shared" : "distinct", total / (measureNanos / 1e9),
                all.percentile(0.50), all.percentile(0.90), all.percentile(0.99), all.max());
    }
}
