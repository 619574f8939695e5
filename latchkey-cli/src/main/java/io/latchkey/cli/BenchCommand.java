package io.latchkey.cli;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
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
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String prefix = "latchkey-bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        TextTable table = new TextTable("threads", "names", "cycles/s", "p50", "p90", "p99", "max")
                .alignRight(0, 2, 3, 4, 5, 6);
        try (LockClient client = Connector.open(uri, global.timeout)) {
            out.printf("lock+unlock cycles on %s, %s per row after %s warm-up%n", Connector.describe(uri),
                    Durations.format(duration), Durations.format(warmup));
            for (boolean shared : modes) {
                for (int n : threads) {
                    if (System.console() != null) {
                        err.printf("\rmeasuring %d thread%s on %s names…   ", n, n == 1 ? "" : "s",
                                shared ? "one shared" : "distinct");
                        err.flush();
                    }
                    Row row;
                    try {
                        row = measure(client, prefix, n, shared);
                    } catch (RuntimeException e) {
                        throw Connector.translate(uri, global.timeout, e);
                    }
                    table.row(String.valueOf(n), shared ? "shared" : "distinct",
                            String.format(Locale.ROOT, "%,.0f", row.cyclesPerSecond),
                            Durations.latency(row.latencies.percentile(0.50)),
                            Durations.latency(row.latencies.percentile(0.90)),
                            Durations.latency(row.latencies.percentile(0.99)),
                            Durations.latency(row.latencies.max()));
                }
            }
            if (System.console() != null) {
                err.print("\r" + " ".repeat(60) + "\r");
                err.flush();
            }
            out.print(table.render());
            return 0;
        }
    }

    private static final class Row {
        final double cyclesPerSecond;
        final Latencies latencies;

        Row(double cyclesPerSecond, Latencies latencies) {
            this.cyclesPerSecond = cyclesPerSecond;
            this.latencies = latencies;
        }
    }

    private Row measure(LockClient client, String prefix, int threadCount, boolean shared) throws InterruptedException {
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
                    while (failure.get() == null) {
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
        long total = 0;
        for (long c : cycles) {
            total += c;
        }
        return new Row(total / (measureNanos / 1e9), Latencies.merge(perThread));
    }
}
