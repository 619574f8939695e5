package io.latchkey.bench.sizing;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.bench.BenchOptions;
import io.latchkey.bench.ComparisonSuite;
import io.latchkey.bench.SideBySide;
import io.latchkey.bench.TimedRun;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * {@code --suites sizing}: how big a server a workload needs. For each topology (Redis, a 3-master Redis Cluster,
 * ZooKeeper alone and as an ensemble of 3, etcd alone and as a cluster of 3, PostgreSQL; {@code --rows} picks some)
 * it starts the servers as child processes, runs Latchkey's lock cycle ({@code lock()} then {@code unlock()}, one
 * name per thread) at 1, 4, 16 and 64 threads of one client, and reads the servers' CPU time from {@code /proc}
 * around each run: server CPU per cycle barely moves with the machine's load, unlike cycles per second, so it is
 * the figure to size by. Then {@link HeldLocks} holds {@code --held} locks under the watchdog and reports the
 * servers' memory and the CPU that keeping them costs.
 */
public final class SizingSuite implements ComparisonSuite {

    static final int[] THREADS = {1, 4, 16, 64};

    @Override
    public String name() {
        return "sizing";
    }

    @Override
    public SideBySide.Report run(BenchOptions options) throws Exception {
        StringBuilder md = new StringBuilder();
        md.append("### Sizing: lock cycles and held locks per server — `--suites sizing`\n\n");
        md.append(String.format(Locale.ROOT, "One client JVM, Latchkey's lock cycle (`lock()` then `unlock()`, "
                + "watchdog mode, one name per thread, so no contention), warm-up %s s and measure %s s per row "
                + "after an untimed %s s at 16 threads; server CPU from `/proc/<pid>/stat` of the server processes "
                + "(10 ms ticks), client CPU of the whole client JVM; both over warm-up and measure, per cycle. "
                + "*Cores busy* is CPU time over wall time.%n%n",
                seconds(options.warmup()), seconds(options.measure()), seconds(serverWarmup(options))));
        boolean failed = false;
        for (Topologies.Entry entry : Topologies.all()) {
            if (!options.selects(entry.key())) {
                continue;
            }
            System.err.println("== sizing: starting " + entry.key());
            Topology topology;
            try {
                topology = entry.start().get();
            } catch (RuntimeException e) {
                md.append("#### ").append(entry.key()).append("\n\nCould not be started: ")
                        .append(String.valueOf(e.getMessage()).lines().findFirst().orElse("")).append("\n\n");
                failed = true;
                continue;
            }
            try (topology) {
                md.append("#### ").append(topology.label()).append("\n\n").append(topology.setup()).append(".\n\n");
                md.append(cycleRows(topology, options));
                md.append(HeldLocks.measure(topology, options));
            } catch (Exception e) {
                e.printStackTrace();
                md.append("\nFailed: ").append(e).append("\n\n");
                failed = true;
            }
        }
        return new SideBySide.Report(md.toString(), true, failed);
    }

    private static String cycleRows(Topology topology, BenchOptions options) throws Exception {
        StringBuilder md = new StringBuilder();
        md.append("| threads | cycles/s | p50 ms | p99 ms | server CPU µs/cycle (all nodes) | busiest node µs/cycle "
                + "| client CPU µs/cycle | server cores busy | client cores busy | cycles/s per server core |\n");
        md.append("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        try (LockClient client = topology.connect(ClientOptions.defaults())) {
            String run = Long.toHexString(System.nanoTime());
            new TimedRun(topology.key() + "-warm", 16, Duration.ZERO, serverWarmup(options))
                    .run(cycles(client, "sizing:" + run + ":warm:"));
            for (int threads : THREADS) {
                System.err.printf(Locale.ROOT, "   %s, %d threads%n", topology.key(), threads);
                Map<Long, Long> before = ServerProcesses.cpuNanosByNode();
                long start = System.nanoTime();
                TimedRun.RunResult r = new TimedRun(topology.key() + "-" + threads, threads, options.warmup(),
                        options.measure()).run(cycles(client, "sizing:" + run + ":" + threads + ":"));
                long wall = System.nanoTime() - start;
                long[] server = ServerProcesses.delta(before, ServerProcesses.cpuNanosByNode());
                if (!r.ok()) {
                    md.append(String.format(Locale.ROOT, "| %d | failed: %s | | | | | | | | |%n", threads, r.error()));
                    continue;
                }
                double serverUs = server[0] / 1e3 / r.totalCycles();
                double busiestUs = server[1] / 1e3 / r.totalCycles();
                md.append(String.format(Locale.ROOT, "| %d | %,.0f | %.2f | %.2f | %.1f | %.1f | %.1f | %.2f | %.2f | %,.0f |%n",
                        threads, r.cyclesPerSecond(), r.p50Nanos() / 1e6, r.p99Nanos() / 1e6, serverUs, busiestUs,
                        r.cpuNanosPerCycle() / 1e3, (double) server[0] / wall,
                        r.cpuNanosPerCycle() * r.totalCycles() / wall, serverUs > 0 ? 1e6 / serverUs : Double.NaN));
            }
        }
        return md.append('\n').toString();
    }

    private static io.latchkey.bench.Cycle.PerThread cycles(LockClient client, String prefix) {
        return threadIndex -> {
            DistributedLock lock = client.lock(prefix + threadIndex);
            return () -> {
                lock.lock();
                lock.unlock();
            };
        };
    }

    /** Long enough for a forked server JVM's JIT to settle before the first timed row. */
    private static Duration serverWarmup(BenchOptions options) {
        Duration d = options.warmup().multipliedBy(3);
        return d.compareTo(Duration.ofSeconds(2)) < 0 ? Duration.ofSeconds(2) : d;
    }

    static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds())
                : String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }
}
