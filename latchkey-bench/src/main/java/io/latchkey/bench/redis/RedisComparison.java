package io.latchkey.bench.redis;

import io.latchkey.bench.BenchOptions;
import io.latchkey.bench.ComparisonSuite;
import io.latchkey.bench.Contender;
import io.latchkey.bench.LeaseMode;
import io.latchkey.bench.Scenario;
import io.latchkey.bench.SideBySide;
import io.latchkey.bench.UnavailableContender;
import io.latchkey.testing.RedisServer;
import java.util.List;
import java.util.function.Supplier;

/**
 * Latchkey's Redis lock against Redisson's {@code RLock} on one {@code redis-server} (started from the PATH on a
 * free port, or the one {@code --redis} names), with two raw EVALSHA round trips per cycle as the limit.
 */
public final class RedisComparison implements ComparisonSuite {

    /** The targets: uncontended ≥ 3× Redisson and ≥ 85 % of the limit, contended ≥ 2× Redisson. */
    static final SideBySide.Targets TARGETS = new SideBySide.Targets(3, 0.85, 2);

    @Override
    public String name() {
        return "redis";
    }

    static List<Scenario> scenarios(int threads) {
        return List.of(
                new Scenario(1, false, LeaseMode.WATCHDOG),
                new Scenario(threads, false, LeaseMode.WATCHDOG),
                new Scenario(1, false, LeaseMode.FIXED),
                new Scenario(threads, false, LeaseMode.FIXED),
                new Scenario(threads, true, LeaseMode.WATCHDOG));
    }

    @Override
    public SideBySide.Report run(BenchOptions options) throws Exception {
        return run(options, new Rows("Redis: Latchkey vs Redisson", "lock+unlock cycles", scenarios(options.threads()),
                TARGETS, true, ""));
    }

    /**
     * One table of rows for both sides, against one server.
     *
     * @param heading the section heading
     * @param unit what one cycle is, for the sentence under the heading
     * @param withLimit whether to run the raw-Lettuce limit next to the uncontended rows
     * @param notes Markdown appended after the connection notes (what a row means), or empty
     */
    record Rows(String heading, String unit, List<Scenario> scenarios, SideBySide.Targets targets, boolean withLimit,
            String notes) {
    }

    /** Starts a redis-server unless {@code --redis} names one, and compares both sides on {@code rows}. */
    static SideBySide.Report run(BenchOptions options, Rows rows) throws Exception {
        RedisServer server = null;
        String uri = options.redisUri();
        if (uri == null) {
            server = RedisServer.standalone().start();
            uri = server.uri();
        }
        try (RedisServerInfo info = new RedisServerInfo(uri)) {
            return compare(options, uri, server != null, info, rows);
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private static SideBySide.Report compare(BenchOptions options, String uri, boolean started, RedisServerInfo info,
            Rows rows) throws InterruptedException {
        String version = info.version();
        EvalShaLimit limit = rows.withLimit() ? new EvalShaLimit(uri) : null;
        Contender latchkey = null;
        Contender redisson = null;
        SideBySide.Report report;
        int[] connections;
        try {
            latchkey = orUnavailable("Latchkey", () -> new LatchkeyContender(uri, options.lease()));
            redisson = orUnavailable("Redisson", () -> new RedissonContender(uri, options.lease()));
            report = new SideBySide(options, latchkey, redisson, limit, info, options.trace() ? new MonitorTrace(uri) : null,
                    rows.targets())
                    .run(rows.scenarios());
        } finally {
            connections = closeCounting(info, redisson, latchkey, limit);
        }
        StringBuilder md = new StringBuilder();
        md.append("### ").append(rows.heading()).append("\n\n");
        md.append(String.format("Same redis-server %s (%s), loopback, no persistence; %s per second "
                        + "summed over all threads (median of the repeats), latency per cycle.%n%n",
                version, started ? "started by the benchmark on a free port" : "given with --redis", rows.unit()));
        md.append(report.markdown());
        md.append("\nHow each side was connected (server connections counted by closing each client at the end):\n\n");
        md.append("- **Latchkey** (").append(count(connections[1])).append("): ").append(latchkey.setup()).append('\n');
        md.append("- **Redisson** (").append(count(connections[0])).append("): ").append(redisson.setup()).append('\n');
        if (limit != null) {
            md.append("- **limit** (").append(count(connections[2])).append("): ").append(limit.setup()).append('\n');
        }
        if (!rows.notes().isEmpty()) {
            md.append('\n').append(rows.notes());
        }
        return new SideBySide.Report(md.toString(), report.targetsMet(), report.failed());
    }

    private static Contender orUnavailable(String name, Supplier<Contender> factory) {
        try {
            return factory.get();
        } catch (RuntimeException e) {
            System.err.println(name + " is unavailable: " + e);
            return new UnavailableContender(name, e);
        }
    }

    private static String count(int connections) {
        return connections < 0 ? "connections unknown" : connections + " server connection" + (connections == 1 ? "" : "s");
    }

    /** Closes each client in turn and returns how many server connections each close took away. */
    private static int[] closeCounting(RedisServerInfo info, AutoCloseable... clients) {
        int[] dropped = new int[clients.length];
        for (int i = 0; i < clients.length; i++) {
            dropped[i] = -1;
            if (clients[i] == null) {
                continue;
            }
            try {
                int before = info.connectedClients();
                clients[i].close();
                dropped[i] = before - settledClients(info);
            } catch (Exception e) {
                System.err.println("closing " + clients[i] + " failed: " + e);
            }
        }
        return dropped;
    }

    /** The connected-client count once it has stopped falling (a close reaches the server asynchronously). */
    private static int settledClients(RedisServerInfo info) throws InterruptedException {
        int last = info.connectedClients();
        for (int i = 0; i < 20; i++) {
            Thread.sleep(100);
            int now = info.connectedClients();
            if (now == last && i >= 2) {
                return now;
            }
            last = now;
        }
        return last;
    }
}
