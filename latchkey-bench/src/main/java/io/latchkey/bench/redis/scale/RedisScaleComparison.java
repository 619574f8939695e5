package io.latchkey.bench.redis.scale;

import io.latchkey.bench.BenchOptions;
import io.latchkey.bench.ComparisonSuite;
import io.latchkey.bench.SideBySide;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * The scale suite ({@code --suites redis-scale}): what Latchkey's Redis locks cost when services lock per
 * entity (many names, many held locks, many waiters), side by side with Redisson on one {@code redis-server}:
 *
 * <ol>
 *   <li>{@code --names} distinct names locked and released by 4 clients × 4 threads: keys left on the server and
 *   its memory growth (Latchkey; Redisson's {@code RLock}, which has no fencing token; Redisson's
 *   {@code RFencedLock}, whose token is a counter key per name);</li>
 *   <li>{@code --held} locks held at once under the watchdog by 4 clients: renewal scripts per renewal interval,
 *   server CPU, server memory and client heap per held lock;</li>
 *   <li>{@code --waiters} threads on one name across 20 clients: hand-off and wait times, the longest wait;</li>
 *   <li>a restart of the server (no persistence) between two passes over the same names: names whose token after
 *   the restart is not greater than before (only when the benchmark started the server itself).</li>
 * </ol>
 */
public final class RedisScaleComparison implements ComparisonSuite {

    private static final int CLIENTS = 4;
    private static final int THREADS_PER_CLIENT = 4;
    /** Clients the waiters spread over: 20 for the default 1,000 waiters (50 each), fewer for small runs. */
    private static int waiterClients(int waiters) {
        return Math.max(2, Math.min(20, waiters / 50));
    }
    private static final int WAITER_ROUNDS = 3;
    private static final Duration DEFAULT_WATCHDOG = Duration.ofSeconds(30);

    @Override
    public String name() {
        return "redis-scale";
    }

    @Override
    public SideBySide.Report run(BenchOptions options) throws Exception {
        String run = UUID.randomUUID().toString().substring(0, 8);
        int threads = CLIENTS * THREADS_PER_CLIENT;
        int waiterClients = waiterClients(options.waiters());
        StringBuilder md = new StringBuilder("### Scale: Latchkey vs Redisson on Redis\n\n");
        boolean met = true;
        try (ScaleServer server = new ScaleServer(options.redisUri())) {
            md.append(String.format("redis-server %s on %s, no persistence; a fresh key prefix per side; Redisson "
                    + "with its defaults (each client its own pool) except the watchdog where stated; Latchkey with "
                    + "`LockClient.connect(uri, options)` per client.%n%n", server.version(),
                    server.restartable() ? "a free port, started by the benchmark" : "the server given by --redis"));

            if (options.selects("names")) {
                // 1. Distinct names.
                List<DistinctNames.Result> names = new ArrayList<>();
                for (int side = 0; side < 3; side++) {
                    String prefix = "scale:" + run + ":names" + side + ":";
                    try (ScaleSide s = side == 0 ? ScaleSide.latchkey(server.uri(), CLIENTS, DEFAULT_WATCHDOG, prefix)
                            : ScaleSide.redisson(server.uri(), CLIENTS, DEFAULT_WATCHDOG, prefix, side == 2)) {
                        progress("names", s.label);
                        names.add(DistinctNames.run(server, s, options.names(), threads));
                    }
                }
                md.append(String.format("**1. %,d distinct names** locked and released once each (`lock()` + "
                        + "`unlock()`, watchdog mode) by %d clients × %d threads. Keys left = keys of the run's prefix "
                        + "afterwards (SCAN), of which permanent = without expiry (the others are transient, such as Redisson's "
                        + "unlock latches of a few seconds); memory = growth of `used_memory`.%n%n", options.names(), CLIENTS,
                        THREADS_PER_CLIENT));
                md.append("| side | names/s | keys left | of which permanent | server memory growth | fencing token |\n"
                        + "|---|---:|---:|---:|---:|---|\n");
                for (DistinctNames.Result r : names) {
                    md.append(String.format("| %s | %,.0f | %,d | %,d | %s | %s |%n", r.side(), r.namesPerSecond(),
                            r.residualKeys().all(), r.residualKeys().permanent(), bytes(r.memoryGrowthBytes()), r.side().equals("Latchkey")
                                    ? "`max(last + 1, server µs)`, one key per namespace"
                                    : r.side().contains("Fenced") ? "a counter key per name" : "none"));
                }
                long latchkeyKeys = names.get(0).residualKeys().all();
                boolean keysMet = latchkeyKeys <= 16_384;
                met &= keysMet;
                md.append(String.format("%nLatchkey ÷ Redisson names/s: %s (RLock), %s (RFencedLock). Keys left: "
                        + "Latchkey %,d (goal ≤ 16,384 per namespace %s), RFencedLock %,d permanent.%n%n",
                        ratio(names.get(0).namesPerSecond(), names.get(1).namesPerSecond()),
                        ratio(names.get(0).namesPerSecond(), names.get(2).namesPerSecond()), latchkeyKeys,
                        keysMet ? "✅" : "❌", names.get(2).residualKeys().permanent()));

                partial(md);
            }

            if (options.selects("held")) {
                // 2. Held locks under the watchdog.
                Duration watchdog = options.watchdog();
                List<HeldLocks.Result> held = new ArrayList<>();
                for (int side = 0; side < 2; side++) {
                    String prefix = "scale:" + run + ":held" + side + ":";
                    try (ScaleSide s = side == 0 ? ScaleSide.latchkey(server.uri(), CLIENTS, watchdog, prefix)
                            : ScaleSide.redisson(server.uri(), CLIENTS, watchdog, prefix, false)) {
                        progress("held", s.label);
                        held.add(HeldLocks.run(server, s, options.held(), threads, watchdog));
                    }
                }
                md.append(String.format("**2. %,d locks held at once** under the watchdog (timeout %s s, so a renewal "
                        + "round every %s s) by %d clients × %d threads, then three renewal rounds counted. Renewal "
                        + "scripts = `EVALSHA`/`EVAL` the server ran in the window (round trips: each is one command "
                        + "from a client); commands = every command incl. those inside scripts; client heap = used heap "
                        + "after full GCs minus before, per held lock (the lock handle the application keeps "
                        + "included).%n%n", options.held(), seconds(watchdog), seconds(watchdog.dividedBy(3)), CLIENTS,
                        THREADS_PER_CLIENT));
                md.append("| side | acquire all, s | renewal scripts per round | per 100 holds | commands per round "
                        + "| server CPU ms per round | server bytes per held lock | client heap bytes per held lock "
                        + "| lost before release |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
                for (HeldLocks.Result r : held) {
                    md.append(String.format("| %s | %.1f | %,.1f | %.2f | %,.0f | %.1f | %,.0f | %,.0f | %,d |%n",
                            r.side(), r.acquireSeconds(), r.scriptsPerInterval(), r.scriptsPer100HoldsPerInterval(),
                            r.commands() / r.intervals(), r.serverCpuMsPerInterval(), r.serverBytesPerLock(),
                            r.heapBytesPerLock(), r.lost()));
                }
                HeldLocks.Result ours = held.get(0);
                HeldLocks.Result theirs = held.get(1);
                boolean renewMet = ours.scriptsPer100HoldsPerInterval() <= 1.0;
                boolean heapMet = ours.heapBytesPerLock() <= theirs.heapBytesPerLock() / 3;
                met &= renewMet && heapMet;
                md.append(String.format("%nLatchkey ÷ Redisson: renewal scripts %s, server CPU %s, server bytes per "
                        + "lock %s, client heap per lock %s. Goals: ≤ 1 renewal round trip per 100 holds %s; client "
                        + "heap per lock ≤ 1/3 of Redisson's %s.%n%n",
                        ratio(ours.scriptsPerInterval(), theirs.scriptsPerInterval()),
                        ratio(ours.serverCpuMsPerInterval(), theirs.serverCpuMsPerInterval()),
                        ratio(ours.serverBytesPerLock(), theirs.serverBytesPerLock()),
                        ratio(ours.heapBytesPerLock(), theirs.heapBytesPerLock()), renewMet ? "✅" : "❌",
                        heapMet ? "✅" : "❌"));

                partial(md);
            }

            if (options.selects("waiters")) {
                // 3. Waiters on one name.
                List<Waiters.Result> waiters = new ArrayList<>();
                for (int side = 0; side < 2; side++) {
                    String prefix = "scale:" + run + ":wait" + side + ":";
                    // One more client than the waiters use: the first holder's.
                    try (ScaleSide s = side == 0
                            ? ScaleSide.latchkey(server.uri(), waiterClients + 1, DEFAULT_WATCHDOG, prefix)
                            : ScaleSide.redisson(server.uri(), waiterClients + 1, DEFAULT_WATCHDOG, prefix, false)) {
                        progress("waiters", s.label);
                        waiters.add(Waiters.run(s, options.waiters(), WAITER_ROUNDS, waiterClients));
                    }
                }
                md.append(String.format("**3. %,d waiters on one name** across %d clients, each taking it %d times "
                        + "(lock, unlock, queue again). Hand-off = one holder's `unlock()` call to the next holder's "
                        + "return from `lock()`; wait = a waiter's `lock()` call (or the first release) to its "
                        + "return.%n%n", options.waiters(), waiterClients, WAITER_ROUNDS));
                md.append("| side | acquisitions/s | hand-off p50 / p99 / max ms | wait p50 / p99 / max ms |\n"
                        + "|---|---:|---:|---:|\n");
                for (Waiters.Result r : waiters) {
                    md.append(String.format("| %s | %,.0f | %s / %s / %s | %s / %s / %s |%n", r.side(),
                            r.waiters() * r.rounds() / r.seconds(),
                            ms(Waiters.Result.percentile(r.handOffNanos(), 0.5)),
                            ms(Waiters.Result.percentile(r.handOffNanos(), 0.99)),
                            ms(Waiters.Result.percentile(r.handOffNanos(), 1.0)),
                            ms(Waiters.Result.percentile(r.waitNanos(), 0.5)),
                            ms(Waiters.Result.percentile(r.waitNanos(), 0.99)),
                            ms(Waiters.Result.percentile(r.waitNanos(), 1.0))));
                }
                md.append(String.format("%nLatchkey ÷ Redisson: acquisitions/s %s; hand-off p50 %s, p99 %s; longest "
                        + "wait %s.%n%n",
                        ratio(waiters.get(0).waiters() * waiters.get(0).rounds() / waiters.get(0).seconds(),
                                waiters.get(1).waiters() * waiters.get(1).rounds() / waiters.get(1).seconds()),
                        ratio(Waiters.Result.percentile(waiters.get(0).handOffNanos(), 0.5),
                                Waiters.Result.percentile(waiters.get(1).handOffNanos(), 0.5)),
                        ratio(Waiters.Result.percentile(waiters.get(0).handOffNanos(), 0.99),
                                Waiters.Result.percentile(waiters.get(1).handOffNanos(), 0.99)),
                        ratio(Waiters.Result.percentile(waiters.get(0).waitNanos(), 1.0),
                                Waiters.Result.percentile(waiters.get(1).waitNanos(), 1.0))));

                partial(md);
            }

            if (options.selects("restart")) {
                // 4. A restart between two passes over the same names.
                if (server.restartable()) {
                    int restartNames = Math.min(options.names(), 10_000);
                    List<RestartTokens.Result> restart = new ArrayList<>();
                    for (int side = 0; side < 2; side++) {
                        String prefix = "scale:" + run + ":restart" + side + ":";
                        try (ScaleSide s = side == 0
                                ? ScaleSide.latchkey(server.uri(), CLIENTS, DEFAULT_WATCHDOG, prefix)
                                : ScaleSide.redisson(server.uri(), CLIENTS, DEFAULT_WATCHDOG, prefix, true)) {
                            progress("restart", s.label);
                            restart.add(RestartTokens.run(server, s, restartNames, threads));
                        }
                    }
                    md.append(String.format("**4. A restart without persistence**: %,d names locked once each, the "
                            + "server restarted empty, the same names locked again.%n%n", restartNames));
                    md.append("| side | names whose token after the restart is not greater | clients working again after |\n"
                            + "|---|---:|---:|\n");
                    for (RestartTokens.Result r : restart) {
                        md.append(String.format("| %s | %,d of %,d | %.1f s |%n", r.side(), r.notGreater(), r.names(),
                                r.recoverySeconds()));
                    }
                    boolean restartMet = restart.get(0).notGreater() == 0;
                    met &= restartMet;
                    md.append(String.format("%nGoal: 0 repeated tokens %s.%n", restartMet ? "✅" : "❌"));
                } else {
                    md.append("**4. A restart**: skipped, the server was given by --redis (the benchmark restarts only a "
                            + "server it started).\n");
                }
            }
        }
        return new SideBySide.Report(md.toString(), met, false);
    }

    /** The report so far on standard error, so that a run that fails later still shows what it measured. */
    private static void partial(StringBuilder md) {
        System.err.println(md);
    }

    private static void progress(String part, String side) {
        System.err.printf(Locale.ROOT, "[redis-scale] %s: %s%n", part, side);
    }

    private static String ratio(double ours, double theirs) {
        return theirs == 0 ? "—" : String.format(Locale.ROOT, "%.2f×", ours / theirs);
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.2f", nanos / 1e6);
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds())
                : String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }

    private static String bytes(long bytes) {
        if (Math.abs(bytes) >= 1 << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1 << 20));
        }
        if (Math.abs(bytes) >= 1 << 10) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        }
        return bytes + " B";
    }
}
