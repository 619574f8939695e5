package io.latchkey.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code latchkey demo}: a flash sale ("seckill") under every strategy, side by side. With no arguments it
 * needs no server (embedded ZooKeeper and H2); {@code --backend} adds real ones.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Flash sale: STOCK items, BUYERS buyers spread over CLIENTS clients, each buyer trying to "
                + "order one item. Runs it without a lock (oversells), with a database row lock, with a version "
                + "CAS, with a DistributedLock on every backend, and with segmented locks, and prints one table.",
                "With no --backend it needs no server: an embedded ZooKeeper and an embedded H2 database."})
final class DemoCommand implements Callable<Integer> {

    @Mixin
    GlobalOptions global;

    @Spec
    CommandSpec spec;

    @Option(names = "--stock", paramLabel = "S", defaultValue = "100", description = "Items on sale (default: ${DEFAULT-VALUE}).")
    int stock;

    @Option(names = "--buyers", paramLabel = "N", defaultValue = "200", description = "Buyers, one order each (default: ${DEFAULT-VALUE}).")
    int buyers;

    @Option(names = "--clients", paramLabel = "C", defaultValue = "4",
            description = "Simulated service instances, each with its own lock client (default: ${DEFAULT-VALUE}).")
    int clients;

    @Option(names = "--threads", paramLabel = "T", defaultValue = "8",
            description = "Buyer threads per client, each with its own database connection (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--backend", paramLabel = "URI",
            description = "A lock backend to add (repeatable): redis://host:6379, redis-sentinel://…, redis-cluster://…, "
                    + "zookeeper://host:2181, etcd://host:2379, jdbc:postgresql://… (see latchkey --help).")
    List<String> userBackends = new ArrayList<>();

    @Option(names = "--database", paramLabel = "JDBC_URL",
            description = "Where the stock lives (tables seckill_good, seckill_order, seckill_good_segment are created "
                    + "if missing; only this run's rows are touched). Default: an embedded H2 database in a temp dir.")
    String database;

    @Option(names = "--no-embedded", negatable = false,
            description = "Do not start the embedded lock backends (use only --backend).")
    boolean noEmbedded;

    @Option(names = "--strategies", split = ",", paramLabel = "NAME",
            description = "Run only these: none, db-pessimistic, db-optimistic, lock, segmented, store (default: all).")
    List<String> only;

    @Option(names = "--segments", paramLabel = "K", defaultValue = "4",
            description = "Segments of the segmented strategy (default: ${DEFAULT-VALUE}).")
    int segments;

    @Option(names = "--pause", paramLabel = "DURATION", defaultValue = "1ms",
            description = "Work between reading and writing the stock (default: ${DEFAULT-VALUE}).")
    Duration pause;

    @Option(names = "--max-attempts", paramLabel = "N", defaultValue = "100",
            description = "Attempts of a db-optimistic buyer before giving up (default: ${DEFAULT-VALUE}).")
    int maxAttempts;

    @Option(names = "--wait", paramLabel = "DURATION", defaultValue = "30s",
            description = "How long a buyer waits for a lock before giving up (default: ${DEFAULT-VALUE}).")
    Duration waitTime;

    @Option(names = "--report", paramLabel = "FILE.html",
            description = "Also write a self-contained HTML page with the table and charts.")
    Path report;

    @Option(names = "--no-progress", negatable = false, description = "No progress output on stderr.")
    boolean noProgress;

    @Override
    public Integer call() throws Exception {
        validate();
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        for (String uri : userBackends) {
            Connector.checkScheme(uri);
        }
        if (database != null) {
            Endpoints.of(Secrets.register(database));
        }
        if (report != null) {
            OutputFiles.checkWritable(report, "--report", ".html", ".htm");
        }
        String runId = UUID.randomUUID().toString().substring(0, 8);
        String lockPrefix = "latchkey-demo:" + runId + ":";
        List<SaleResult> results = new ArrayList<>();
        List<String> notes;
        String setup;
        try (DemoEnvironment env = DemoEnvironment.start(database, !noEmbedded, userBackends, global.timeout, runId)) {
            if (global.verbose) {
                env.describe(err);
            }
            FlashSaleDatabase db = env.database();
            try {
                db.createSchema();
            } catch (java.sql.SQLException e) {
                throw Connector.translate(db.url(), global.timeout, e);
            }
            // Fail before the first strategy rather than after several, if a backend cannot be reached.
            for (LockBackend backend : env.backends()) {
                backend.open().close();
            }
            List<SaleStrategy> strategies = strategies(env, lockPrefix);
            setup = setupLine(env);
            out.println(setup);
            out.flush();
            SaleRunner runner = new SaleRunner(db, stock, buyers, clients, threads, segments);
            long baseId = System.currentTimeMillis() * 100;
            List<Long> goods = new ArrayList<>();
            try (Progress progress = new Progress(err, (long) strategies.size() * buyers, !noProgress)) {
                for (int i = 0; i < strategies.size(); i++) {
                    SaleStrategy strategy = strategies.get(i);
                    progress.startStep(strategy.name());
                    long goodId = baseId + i;
                    goods.add(goodId);
                    results.add(runner.run(strategy, goodId, progress));
                }
            } finally {
                if (!env.embeddedDatabase()) {
                    db.cleanUp(goods);
                }
            }
            notes = new ArrayList<>(env.notes());
        }
        out.println();
        out.print(DemoTable.render(results));
        out.println();
        for (String line : DemoTable.legend(results)) {
            out.println(line);
        }
        for (String note : notes) {
            out.println("note: " + note);
        }
        for (SaleResult r : results) {
            if (r.error() != null) {
                err.printf("warning: %s: %s%n", r.strategy(), r.error());
            }
        }
        if (report != null) {
            HtmlReport.write(report, setup, results);
            out.printf("report written to %s%n", report);
        }
        out.flush();
        for (SaleResult r : results) {
            if (!r.strategy().equals("none") && r.oversold() > 0) {
                throw new CliException(CliException.UNAVAILABLE, String.format(
                        "strategy %s oversold by %d although it locks: mutual exclusion was broken", r.strategy(),
                        r.oversold()));
            }
        }
        return 0;
    }

    private void validate() {
        check(stock >= 1 && stock <= 1_000_000, "--stock must be 1..1000000 but was %d", stock);
        check(buyers >= 1 && buyers <= 1_000_000, "--buyers must be 1..1000000 but was %d", buyers);
        check(clients >= 1 && clients <= 64, "--clients must be 1..64 but was %d", clients);
        check(threads >= 1 && threads <= 256, "--threads must be 1..256 but was %d", threads);
        check(segments >= 1 && segments <= stock, "--segments must be 1..stock (%d) but was %d", stock, segments);
        check(maxAttempts >= 1, "--max-attempts must be positive but was %d", maxAttempts);
        if (pause.isNegative() || waitTime.isNegative() || waitTime.isZero()) {
            throw new CliException(CliException.USAGE, String.format(
                    "--pause must not be negative and --wait must be positive but were %s and %s",
                    Durations.format(pause), Durations.format(waitTime)));
        }
        if (only != null) {
            for (String s : only) {
                if (!List.of("none", "db-pessimistic", "db-optimistic", "lock", "segmented", "store")
                        .contains(s.toLowerCase(Locale.ROOT))) {
                    throw new CliException(CliException.USAGE, String.format(
                            "--strategies takes none, db-pessimistic, db-optimistic, lock, segmented, store but had '%s'", s));
                }
            }
        }
    }

    private static void check(boolean ok, String format, Object... args) {
        if (!ok) {
            throw new CliException(CliException.USAGE, String.format(format, args));
        }
    }

    private boolean wanted(String kind) {
        return only == null || only.stream().anyMatch(s -> s.equalsIgnoreCase(kind));
    }

    private List<SaleStrategy> strategies(DemoEnvironment env, String lockPrefix) {
        List<SaleStrategy> list = new ArrayList<>();
        if (wanted("none")) {
            list.add(new NoLockStrategy(pause));
        }
        if (wanted("db-pessimistic")) {
            list.add(new RowLockStrategy(env.database().url(), threads, pause));
        }
        if (wanted("db-optimistic")) {
            list.add(new VersionCasStrategy(env.database().url(), threads, pause, maxAttempts));
        }
        for (LockBackend backend : env.backends()) {
            if (wanted("lock")) {
                list.add(new DistributedLockStrategy(backend, lockPrefix, pause, waitTime));
            }
        }
        for (LockBackend backend : env.backends()) {
            if (wanted("segmented")) {
                list.add(new SegmentedLockStrategy(backend, lockPrefix, segments, pause, waitTime));
            }
        }
        for (LockBackend backend : env.backends()) {
            if (wanted("store") && FencedStoreStrategy.supported(backend)) {
                list.add(new FencedStoreStrategy(backend, lockPrefix, stock, pause, waitTime));
            }
        }
        return list;
    }

    private String setupLine(DemoEnvironment env) {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format("Flash sale: %d items, %d buyers over %d clients x %d threads, %s between reading "
                + "and writing the stock.%n", stock, buyers, clients, threads, Durations.format(pause)));
        sb.append("Stock in: ").append(env.databaseDescription()).append(". Locks: ");
        if (env.backends().isEmpty()) {
            sb.append("none available");
        } else {
            List<String> parts = new ArrayList<>();
            for (LockBackend b : env.backends()) {
                parts.add(b.label() + " (" + Secrets.mask(b.description()) + ")");
            }
            sb.append(String.join(", ", parts));
        }
        sb.append('.');
        return sb.toString();
    }
}
