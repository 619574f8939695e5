package io.latchkey.cli.faults;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import io.latchkey.jdbc.FencingGuard;

/**
 * {@code latchkey verify --faults}: starts worker processes ({@link FaultWorkerMain}) that contend on one lock name
 * and write a fenced register, injects the {@link FaultSchedule}'s faults, then checks the merged {@link History}
 * ({@link HistoryChecker}) and prints one row per fault ({@link FaultReport}).
 *
 * <p>The register is an H2 database served over TCP by this process (or the user's {@code --resource jdbc:…}); the
 * workers reach the lock server through one {@link TcpProxy} each (when the URI allows), so that a partition needs
 * no root. Everything started is stopped before {@link #run} returns; the lock name is unique per run.
 */
public final class FaultRun {

    /** The fencing table of the register (a {@link FencingGuard}'s). */
    static final String FENCING_TABLE = "latchkey_fault_fencing";
    /** The register table: one row per run, {@code name}, {@code val}. */
    static final String REGISTER_TABLE = "latchkey_fault_register";
    /**
     * The {@code resource} that keeps the register in the lock's own fenced store ({@code --register store}): key
     * {@value #STORE_KEY} of the store of the run's lock, absent (0) at the start.
     */
    public static final String STORE_REGISTER = "store";
    /** The register's key in the lock's fenced store. */
    static final String STORE_KEY = "register";

    /**
     * What to run.
     *
     * @param uri the backend to verify, or {@code null} with {@code embedded}
     * @param embedded a kind of {@link EmbeddedServers#KINDS} to start, or {@code null}
     * @param resource the register's JDBC URL, or {@code null} for an H2 database hosted by the verifier
     * @param workers worker processes (2..16)
     * @param lease the workers' watchdog timeout (ZooKeeper: session timeout)
     * @param duration the least length of the run; the schedule may need longer
     * @param report a {@code .html} or {@code .csv} file to write, or {@code null}
     * @param skip faults of the schedule not to run (none from the command line)
     * @param only when not empty, the only faults to run ({@code --fault}): each must be one the backend has
     * @param soak {@code null}, or how long a soak run lasts: a fault every {@link #SOAK_PERIOD}, cycling through
     *        the schedule's faults, with the workers' heap and threads and the server's objects sampled at the start,
     *        the middle and the end
     */
    public record Options(String uri, String embedded, String resource, int workers, Duration lease,
                          Duration duration, Path report, Set<FaultKind> skip, Set<FaultKind> only, Duration soak) {

        /** Not a soak run. */
        public Options(String uri, String embedded, String resource, int workers, Duration lease, Duration duration,
                       Path report, Set<FaultKind> skip, Set<FaultKind> only) {
            this(uri, embedded, resource, workers, lease, duration, report, skip, only, null);
        }

        /** Every fault of the schedule but {@code skip}. */
        public Options(String uri, String embedded, String resource, int workers, Duration lease, Duration duration,
                       Path report, Set<FaultKind> skip) {
            this(uri, embedded, resource, workers, lease, duration, report, skip, Set.of());
        }

        /** Whether the schedule may have {@code kind}. */
        boolean wants(FaultKind kind) {
            return only.isEmpty() ? !skip.contains(kind) : only.contains(kind);
        }

        public Options {
            skip = skip == null ? Set.of() : Set.copyOf(skip);
            only = only == null ? Set.of() : Set.copyOf(only);
            if ((uri == null) == (embedded == null)) {
                throw new IllegalArgumentException("give either a URI or --embedded KIND, not both or neither");
            }
            if (uri != null && uri.toLowerCase(Locale.ROOT).startsWith("mem:")) {
                throw new IllegalArgumentException("--faults needs a backend that worker processes share; mem:// "
                        + "lives in one process (use --embedded " + String.join("|", EmbeddedServers.KINDS)
                        + " or your server's URI)");
            }
            if (workers < 2 || workers > 16) {
                throw new IllegalArgumentException(String.format("--workers must be 2..16 but was %d", workers));
            }
            Objects.requireNonNull(lease, "lease");
            if (lease.toMillis() < 500 || lease.toMinutes() > 5) {
                throw new IllegalArgumentException(String.format(
                        "--lease must be between 500ms and 5m for --faults but was %dms", lease.toMillis()));
            }
            Objects.requireNonNull(duration, "duration");
            if (soak != null && soak.compareTo(SOAK_PERIOD) < 0) {
                throw new IllegalArgumentException(String.format(
                        "--soak must be at least %ds (a fault every %ds) but was %dms", SOAK_PERIOD.toSeconds(),
                        SOAK_PERIOD.toSeconds(), soak.toMillis()));
            }
            if (resource != null && !resource.startsWith("jdbc:") && !resource.equals(STORE_REGISTER)) {
                throw new IllegalArgumentException(String.format(
                        "--resource must be a JDBC URL (jdbc:postgresql://…, jdbc:mariadb://…, jdbc:h2:…) but was '%s'",
                        resource));
            }
            if (report != null) {
                String n = report.getFileName().toString().toLowerCase(Locale.ROOT);
                if (!n.endsWith(".html") && !n.endsWith(".csv")) {
                    throw new IllegalArgumentException(String.format(
                            "--report must name a .html or .csv file but was '%s'", report));
                }
            }
        }
    }

    /**
     * The run's verdict.
     *
     * @param soak a soak run's samples (start, middle, end), empty otherwise
     */
    public record Result(List<FaultRow> rows, boolean passed, String table, List<SoakSample> soak) {
    }

    /**
     * One sample of a soak run.
     *
     * @param label {@code start}, {@code middle} or {@code end}
     * @param seconds since the run's start
     * @param faults faults injected so far
     * @param heapMin the least heap in use after a GC among the live workers, bytes (-1 if none sampled)
     * @param heapMax the most
     * @param threadsMin the fewest live threads among the live workers
     * @param threadsMax the most
     * @param serverObjects keys, rows or znodes on the lock's server (-1 if not countable)
     */
    public record SoakSample(String label, double seconds, int faults, long heapMin, long heapMax, int threadsMin,
                             int threadsMax, long serverObjects) {
    }

    /** A soak run injects a fault this often (or as soon as the previous one is over and settled, if later). */
    public static final Duration SOAK_PERIOD = Duration.ofSeconds(20);
    /** How often a soak run's workers sample their heap and threads. */
    static final Duration SAMPLE_EVERY = Duration.ofSeconds(5);
    /** A soak run fails if a worker's live threads grow by more than this from the start to the end. */
    static final int SOAK_THREAD_SLACK = 5;
    /** ... or its heap after a GC by more than half plus this. */
    static final long SOAK_HEAP_SLACK = 16L << 20;
    /** ... or the server's objects by more than this. */
    static final long SOAK_OBJECT_SLACK = 10;

    /** How long a run waits for writes to be accepted again after a server fault before it goes on. */
    static final Duration RECOVERY_BOUND = Duration.ofSeconds(90);
    /** How far a clock jump moves the server's wall clock: far past any lease. */
    static final Duration CLOCK_JUMP = Duration.ofHours(1);

    /** Generous: a loaded 2-core machine takes long to start three JVMs that load a driver each. */
    static final Duration WORKER_START_TIMEOUT = Duration.ofSeconds(150);

    private final Options options;
    private final PrintWriter out;
    private final History history = new History();
    private final List<WorkerProcess> workers = new ArrayList<>();
    private final Map<String, List<TcpProxy>> proxies = new HashMap<>();
    private final List<FaultWindow> windows = new ArrayList<>();
    private final String name = "latchkey-faults-" + UUID.randomUUID().toString().substring(0, 8);
    private Path dir;
    private ServerControl server;
    private String registerUrl;
    private int nextWorker = 1;
    private final List<SoakSample> samples = new ArrayList<>();
    /** The live worker that runs on the master's side of a split brain, or {@code null}. */
    private WorkerProcess masterSide;
    /** The register as that worker reaches it (through {@link #registerProxy}), or {@code null}. */
    private String masterSideRegisterUrl;
    private TcpProxy registerProxy;
    private int injected;

    private FaultRun(Options options, PrintWriter out) {
        this.options = options;
        this.out = out;
    }

    /**
     * Runs the schedule and checks the history.
     *
     * @throws IllegalArgumentException for an unknown {@code --embedded} kind
     * @throws IllegalStateException if a server or a worker does not start
     */
    public static Result run(Options options, PrintWriter out) throws InterruptedException {
        return new FaultRun(options, out).run();
    }

    private Result run() throws InterruptedException {
        Object h2 = null;
        StallMonitor stalls = new StallMonitor();
        try {
            dir = Files.createTempDirectory("latchkey-faults-");
            server = options.embedded() != null ? EmbeddedServers.start(options.embedded(), dir, options.lease(),
                    options.wants(FaultKind.PARTITION_SERVER) || options.wants(FaultKind.PARTITION_LEADER)
                    || options.wants(FaultKind.SPLIT_BRAIN))
                    : ServerControl.external(options.uri());
            boolean inStore = STORE_REGISTER.equals(options.resource());
            if (options.resource() != null) {
                registerUrl = options.resource();
            } else {
                h2 = startH2();
            }
            if (!inStore) {
                prepareRegister();
            }
            FaultSchedule schedule = FaultSchedule.plan(server, options.lease(), options.duration(), options.skip(),
                    options.only());
            out.printf("fault run on %s: %d worker processes on lock %s, lease %s, fenced register in %s%n",
                    server.description(), options.workers(), name, FaultSchedule.seconds(options.lease()),
                    inStore ? "the lock's own fenced store (--register store)"
                            : options.resource() != null ? ProxiedUri.backend(registerUrl) + " (--resource)"
                            : "an H2 database hosted by the verifier");
            if (server.serverFaults().isEmpty()) {
                out.println("only client-side faults run: the verifier did not start this server");
            }
            out.println("schedule:");
            schedule.describe().forEach(out::println);
            out.flush();
            for (int i = 0; i < options.workers(); i++) {
                spawnWorker();
            }
            awaitStarted();
            long runEnd = inject(schedule);
            stopWorkers();
            long finalValue = inStore ? readStoreRegister() : readRegister();
            Duration wait = workerWait();
            Duration stuckBound = wait.plus(workerTimeout().multipliedBy(2)).plus(options.lease()).plusSeconds(5);
            List<FaultRow> rows = new HistoryChecker(server.backend(), options.lease(), stuckBound, stalls::stalledNanos)
                    .check(history.snapshot(), windows, runEnd, finalValue);
            long lost = stalls.stalledNanos(windows.get(0).start(), runEnd);
            if (lost > TimeUnit.SECONDS.toNanos(1)) {
                out.printf("the machine stalled the run for %.1fs in all (late wake-ups of a 50 ms timer); the timing "
                        + "rules allowed it%n", lost / 1e9);
            }
            boolean passed = rows.get(rows.size() - 1).passed();
            String table = FaultReport.text(rows, options.lease());
            out.print(table);
            for (String v : rows.get(rows.size() - 1).violations()) {
                out.println("VIOLATION " + v);
            }
            if (options.soak() != null) {
                out.print(soakTable());
                for (String v : soakViolations()) {
                    out.println("VIOLATION " + v);
                    passed = false;
                }
            }
            out.println(passed ? "all fault rules held" : "FAILED: a fault rule was broken (see VIOLATION lines)");
            if (options.report() != null) {
                FaultReport.write(options.report(), rows, history.snapshot(), windows, options.lease());
                out.println("report: " + options.report() + " (raw history: "
                        + FaultReport.historyFile(options.report()).getFileName() + ")");
            }
            out.flush();
            return new Result(rows, passed, table, List.copyOf(samples));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            for (WorkerProcess w : workers) {
                if (w.isAlive()) {
                    w.kill();
                }
            }
            proxies.values().forEach(list -> list.forEach(TcpProxy::close));
            if (registerProxy != null) {
                registerProxy.close();
            }
            stalls.close();
            stopH2(h2);
            if (server != null) {
                server.close();
            }
            deleteQuietly(dir);
        }
    }

    private long inject(FaultSchedule schedule) throws InterruptedException {
        long start = System.nanoTime();
        Thread.sleep(schedule.settle().toMillis());
        windows.add(new FaultWindow(FaultKind.NONE, "", -1, start, System.nanoTime(), 0));
        Duration soak = options.soak();
        if (soak != null) {
            sample("start", start);
        }
        long soakEnd = soak == null ? 0 : start + soak.toNanos();
        List<FaultKind> steps = schedule.steps();
        for (int i = 0; soak == null ? i < steps.size() : !steps.isEmpty() && System.nanoTime() - soakEnd < 0; i++) {
            FaultKind kind = steps.get(i % steps.size());
            long faultStart = System.nanoTime();
            FaultWindow w = inject(kind, schedule.faultLength());
            windows.add(w);
            out.printf("  %s %s%n", kind.label(), w.target().isEmpty() ? "done" : "on " + w.target()
                    + (w.targetToken() >= 0 ? " (token " + w.targetToken() + ")" : " (held nothing)"));
            out.flush();
            if (kind.serverSide()) {
                awaitRecovery(faultStart);
            }
            injected++;
            long elapsed = System.nanoTime() - faultStart;
            long rest = soak != null ? SOAK_PERIOD.toNanos() - elapsed
                    : schedule.settle().toNanos() + (kind.lasts() ? schedule.faultLength().toNanos() : 0) - elapsed;
            Thread.sleep(Math.max(schedule.settle().toMillis(), TimeUnit.NANOSECONDS.toMillis(Math.max(0, rest))));
            if (soak != null && samples.size() == 1 && System.nanoTime() - start >= soak.toNanos() / 2) {
                sample("middle", start);
            }
        }
        if (soak != null) {
            if (samples.size() == 1) {
                sample("middle", start);
            }
            sample("end", start);
        }
        long end = System.nanoTime();
        for (int i = 0; i < windows.size(); i++) {
            long next = i + 1 < windows.size() ? windows.get(i + 1).start() : end;
            windows.set(i, windows.get(i).withWindowEnd(next));
        }
        return end;
    }

    private FaultWindow inject(FaultKind kind, Duration length) throws InterruptedException {
        switch (kind) {
            case PAUSE: {
                WorkerProcess target = holder(true);
                long token = history.heldToken(target.id());
                target.pause();
                // stamped once the worker is frozen: a hold that ended before this stamp was not hit
                long start = mark(HistoryEvent.Type.FAULT_START, kind, target.id());
                Thread.sleep(length.toMillis());
                target.resume();
                long end = mark(HistoryEvent.Type.FAULT_END, kind, target.id());
                return new FaultWindow(kind, target.id(), token, start, end, 0);
            }
            case KILL: {
                WorkerProcess target = holder(false);
                long token = history.heldToken(target.id());
                long start = mark(HistoryEvent.Type.FAULT_START, kind, target.id());
                target.kill();
                long end = mark(HistoryEvent.Type.FAULT_END, kind, target.id());
                spawnWorker();
                return new FaultWindow(kind, target.id(), token, start, end, 0);
            }
            case PARTITION: {
                // not the worker on the leader's side: it reaches the servers directly, not through proxies
                WorkerProcess target = holder(false, masterSide);
                long token = history.heldToken(target.id());
                long start = mark(HistoryEvent.Type.FAULT_START, kind, target.id());
                proxies.get(target.id()).forEach(TcpProxy::blackHole);
                Thread.sleep(length.toMillis());
                proxies.get(target.id()).forEach(TcpProxy::heal);
                long end = mark(HistoryEvent.Type.FAULT_END, kind, target.id());
                return new FaultWindow(kind, target.id(), token, start, end, 0);
            }
            case PARTITION_SERVER:
            case PARTITION_LEADER:
            case SPLIT_BRAIN: {
                long start = mark(HistoryEvent.Type.FAULT_START, kind, "");
                String problem = "";
                try {
                    if (kind == FaultKind.PARTITION_LEADER) {
                        server.isolateLeader();
                        out.printf(Locale.ROOT, "  partition leader: %s stays with the old leader; the others elected "
                                + "a new one %.1fs after the cut%n", masterSide == null ? "no worker" : masterSide.id(),
                                (System.nanoTime() - start) / 1e9);
                    } else if (kind == FaultKind.SPLIT_BRAIN) {
                        if (masterSide == null || !masterSide.isAlive()) {
                            throw new IllegalStateException("no worker runs on the master's side");
                        }
                        server.splitBrain();
                        out.printf(Locale.ROOT, "  split brain: %s stays with the master; the sentinels promoted the "
                                + "replica %.1fs after the cut%n", masterSide.id(), (System.nanoTime() - start) / 1e9);
                    } else {
                        server.partition();
                    }
                    try {
                        Thread.sleep(length.toMillis());
                    } finally {
                        long healing = System.nanoTime();
                        server.heal();
                        if (kind == FaultKind.SPLIT_BRAIN) {
                            out.printf(Locale.ROOT, "  split brain: healed %.1fs after the cut; the old master was a "
                                    + "replica in sync %.1fs later%n", (healing - start) / 1e9,
                                    (System.nanoTime() - healing) / 1e9);
                        }
                    }
                } catch (RuntimeException e) {
                    problem = e.getMessage() == null ? e.toString() : e.getMessage().strip().lines().findFirst()
                            .orElse("");
                }
                long end = mark(HistoryEvent.Type.FAULT_END, kind, "");
                return new FaultWindow(kind, "", -1, start, end, 0, problem);
            }
            case SERVER_RESTART:
            case FAILOVER:
            case CLOCK_JUMP: {
                long start = mark(HistoryEvent.Type.FAULT_START, kind, "");
                String problem = "";
                try {
                    if (kind == FaultKind.SERVER_RESTART) {
                        server.crash();
                        Thread.sleep(1_000);
                        server.restart();
                    } else if (kind == FaultKind.CLOCK_JUMP) {
                        server.jumpClock(CLOCK_JUMP);
                    } else {
                        server.failover();
                    }
                } catch (RuntimeException e) {
                    // judged like any broken rule: the row fails and names it; the run goes on
                    problem = e.getMessage() == null ? e.toString() : e.getMessage().strip().lines().findFirst()
                            .orElse("");
                }
                long end = mark(HistoryEvent.Type.FAULT_END, kind, "");
                return new FaultWindow(kind, "", -1, start, end, 0, problem);
            }
            default:
                throw new IllegalArgumentException("no such fault: " + kind);
        }
    }

    /**
     * A soak sample: the latest heap and thread sample of each live worker (each sends one every
     * {@link #SAMPLE_EVERY}; this waits for a fresh one) and the server's objects.
     */
    private void sample(String label, long runStart) throws InterruptedException {
        long asked = System.nanoTime();
        Thread.sleep(SAMPLE_EVERY.toMillis() + 500);
        List<String> alive = workers.stream().filter(WorkerProcess::isAlive).map(WorkerProcess::id).toList();
        long heapMin = Long.MAX_VALUE;
        long heapMax = -1;
        int threadsMin = Integer.MAX_VALUE;
        int threadsMax = -1;
        for (Map.Entry<String, HistoryEvent> e : history.samples().entrySet()) {
            if (!alive.contains(e.getKey()) || e.getValue().nanos() - asked < 0) {
                continue;
            }
            Map<String, Long> v = new HashMap<>();
            for (String kv : e.getValue().detail().split(" ")) {
                String[] p = kv.split("=", 2);
                if (p.length == 2) {
                    v.put(p[0], Long.parseLong(p[1]));
                }
            }
            long heap = v.getOrDefault("heap", -1L);
            int threads = v.getOrDefault("threads", -1L).intValue();
            heapMin = Math.min(heapMin, heap);
            heapMax = Math.max(heapMax, heap);
            threadsMin = Math.min(threadsMin, threads);
            threadsMax = Math.max(threadsMax, threads);
        }
        long objects;
        try {
            objects = server.serverObjects();
        } catch (RuntimeException e) {
            out.println("  soak sample " + label + ": could not count the server's objects: " + e.getMessage());
            objects = -1;
        }
        SoakSample s = new SoakSample(label, (System.nanoTime() - runStart) / 1e9, injected,
                heapMax < 0 ? -1 : heapMin, heapMax, threadsMax < 0 ? -1 : threadsMin, threadsMax, objects);
        samples.add(s);
        out.printf(Locale.ROOT, "  soak sample %s after %.0fs: %s%n", label, s.seconds(), describe(s));
        out.flush();
    }

    private static String describe(SoakSample s) {
        return String.format(Locale.ROOT, "worker heap after GC %s MB, worker threads %s, server objects %s",
                s.heapMax() < 0 ? "?" : String.format(Locale.ROOT, "%.1f–%.1f", s.heapMin() / 1048576.0,
                        s.heapMax() / 1048576.0),
                s.threadsMax() < 0 ? "?" : s.threadsMin() + "–" + s.threadsMax(),
                s.serverObjects() < 0 ? "?" : Long.toString(s.serverObjects()));
    }

    /** The soak samples as a table. */
    private String soakTable() {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "soak of %s: %d faults in %.0fs (one every %ds, cycling)%n", server.backend(), injected,
                samples.isEmpty() ? 0.0 : samples.get(samples.size() - 1).seconds(), SOAK_PERIOD.toSeconds()));
        b.append(String.format(Locale.ROOT, "  %-7s %8s %7s %26s %15s %15s%n", "sample", "at", "faults",
                "worker heap after GC (MB)", "worker threads", "server objects"));
        for (SoakSample s : samples) {
            b.append(String.format(Locale.ROOT, "  %-7s %7.0fs %7d %26s %15s %15s%n", s.label(), s.seconds(),
                    s.faults(), s.heapMax() < 0 ? "?" : String.format(Locale.ROOT, "%.1f–%.1f",
                            s.heapMin() / 1048576.0, s.heapMax() / 1048576.0),
                    s.threadsMax() < 0 ? "?" : s.threadsMin() + "–" + s.threadsMax(),
                    s.serverObjects() < 0 ? "?" : Long.toString(s.serverObjects())));
        }
        return b.toString();
    }

    /**
     * What grew from the soak's middle to its end beyond the slack allowed; empty when flat. The first half is the
     * warm-up: pools fill to their bounds (the SQL backend's I/O threads), caches and code warm up.
     */
    List<String> soakViolations() {
        return soakViolations(samples);
    }

    static List<String> soakViolations(List<SoakSample> samples) {
        List<String> v = new ArrayList<>();
        if (samples.size() < 2) {
            return v;
        }
        SoakSample a = samples.get(samples.size() - 2);
        SoakSample z = samples.get(samples.size() - 1);
        if (a.threadsMax() < 0 || z.threadsMax() < 0) {
            v.add("soak: no worker sampled its heap and threads at the " + (a.threadsMax() < 0 ? a.label() : "end"));
        } else {
            if (z.threadsMax() > a.threadsMax() + SOAK_THREAD_SLACK) {
                v.add(String.format(Locale.ROOT, "soak: worker threads grew from %d (%s) to %d (end)",
                        a.threadsMax(), a.label(), z.threadsMax()));
            }
            if (z.heapMax() > a.heapMax() * 3 / 2 + SOAK_HEAP_SLACK) {
                v.add(String.format(Locale.ROOT, "soak: worker heap after GC grew from %.1f MB (%s) to %.1f MB (end)",
                        a.heapMax() / 1048576.0, a.label(), z.heapMax() / 1048576.0));
            }
        }
        if (a.serverObjects() >= 0 && z.serverObjects() > a.serverObjects() + SOAK_OBJECT_SLACK) {
            v.add(String.format(Locale.ROOT, "soak: the server's objects grew from %d (%s) to %d (end)",
                    a.serverObjects(), a.label(), z.serverObjects()));
        }
        return v;
    }

    /**
     * After a server fault: waits until a hold granted after the fault has written (recovery, measured by the
     * checker), at most {@link #RECOVERY_BOUND}; the settle time follows either way.
     */
    private void awaitRecovery(long faultStart) throws InterruptedException {
        long deadline = System.nanoTime() + RECOVERY_BOUND.toNanos();
        while (!history.writeOfGrantAfter(faultStart) && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
        }
    }

    /**
     * A worker that was just granted the lock ({@code betweenReadAndWrite}: that has just read the register under it),
     * or any live worker if none is within three leases.
     */
    private WorkerProcess holder(boolean betweenReadAndWrite) throws InterruptedException {
        return holder(betweenReadAndWrite, null);
    }

    /** @param not a worker not to pick, or {@code null} */
    private WorkerProcess holder(boolean betweenReadAndWrite, WorkerProcess not) throws InterruptedException {
        long since = System.nanoTime();
        long deadline = since + options.lease().multipliedBy(3).plus(workerWait()).toNanos();
        while (System.nanoTime() - deadline < 0) {
            Optional<String> h = betweenReadAndWrite ? history.readerSince(since) : history.holderSince(since);
            if (h.isPresent()) {
                for (WorkerProcess w : workers) {
                    if (w.id().equals(h.get()) && w.isAlive() && w != not) {
                        return w;
                    }
                }
            }
            Thread.sleep(2);
        }
        return workers.stream().filter(w -> w.isAlive() && w != not).findFirst()
                .orElseThrow(() -> new IllegalStateException("no worker is alive"));
    }

    private long mark(HistoryEvent.Type type, FaultKind kind, String target) {
        HistoryEvent e = HistoryEvent.now(HistoryEvent.VERIFIER, type, -1, -1, kind.name() + " " + target);
        history.add(e);
        return e.nanos();
    }

    private Duration workerWait() {
        return options.lease().compareTo(Duration.ofSeconds(1)) > 0 ? options.lease() : Duration.ofSeconds(1);
    }

    private Duration workerTimeout() {
        Duration half = options.lease().dividedBy(2);
        return half.compareTo(Duration.ofMillis(500)) > 0 ? half : Duration.ofMillis(500);
    }

    private void spawnWorker() {
        String id = "w" + nextWorker++;
        String uri = server.uri();
        boolean sided = options.wants(FaultKind.SPLIT_BRAIN) && server.serverFaults().contains(FaultKind.SPLIT_BRAIN)
                || options.wants(FaultKind.PARTITION_LEADER)
                && server.serverFaults().contains(FaultKind.PARTITION_LEADER);
        sided = sided && (masterSide == null || !masterSide.isAlive());
        if (server.proxiable() && !sided) {
            List<TcpProxy> mine = new ArrayList<>();
            uri = ProxiedUri.rewrite(uri, a -> {
                TcpProxy p = new TcpProxy(a.host(), a.port());
                mine.add(p);
                return p.port();
            });
            proxies.put(id, mine);
        }
        // Long enough that the verifier's SIGSTOP (a forked kill, slow on a loaded machine) lands inside the hold.
        long hold = Math.max(50, Math.min(500, options.lease().toMillis() / 4));
        List<String> args = new ArrayList<>(List.of("--id", id, "--name", name, "--table", REGISTER_TABLE, "--lease", Long.toString(options.lease().toMillis()),
                "--hold", Long.toString(hold), "--wait", Long.toString(workerWait().toMillis()),
                "--timeout", Long.toString(workerTimeout().toMillis())));
        if (options.soak() != null) {
            args.addAll(List.of("--sample", Long.toString(SAMPLE_EVERY.toMillis())));
        }
        if (sided) {
            // The first worker (and the replacement of a killed one) runs where it stays with the master or leader,
            // reaching the servers directly (its namespace's loopback is not the verifier's, where the proxies are).
            masterSide = WorkerProcess.start(id, args, Map.of("URI", uri, "REGISTER", masterSideRegister()),
                    dir.resolve(id + ".err"), history, server::onMasterSide);
            workers.add(masterSide);
            return;
        }
        workers.add(WorkerProcess.start(id, args, Map.of("URI", uri, "REGISTER", registerUrl),
                dir.resolve(id + ".err"), history));
    }

    /**
     * The register's URL for the worker on the master's side of a split brain: the verifier's H2 through a proxy on
     * the host's address of the segment (that worker's loopback is its namespace's own); a register elsewhere as is.
     */
    private String masterSideRegister() {
        if (masterSideRegisterUrl == null) {
            String prefix = "jdbc:h2:tcp://127.0.0.1:";
            if (registerUrl.startsWith(prefix)) {
                String rest = registerUrl.substring(prefix.length());
                int slash = rest.indexOf('/');
                registerProxy = new TcpProxy(server.hostAddress(), "127.0.0.1",
                        Integer.parseInt(rest.substring(0, slash)));
                masterSideRegisterUrl = "jdbc:h2:tcp://" + server.hostAddress() + ":" + registerProxy.port()
                        + rest.substring(slash);
            } else {
                masterSideRegisterUrl = registerUrl;
            }
        }
        return masterSideRegisterUrl;
    }

    private void awaitStarted() throws InterruptedException {
        long deadline = System.nanoTime() + WORKER_START_TIMEOUT.toNanos();
        while (history.count(HistoryEvent.Type.START) < workers.size()) {
            if (System.nanoTime() - deadline > 0 || workers.stream().anyMatch(w -> !w.isAlive())) {
                String exited = workers.stream().filter(w -> !w.isAlive()).map(WorkerProcess::id).toList().toString();
                throw new IllegalStateException(String.format("the worker processes did not connect within %ds "
                        + "(exited: %s; latest events: %s): %s", WORKER_START_TIMEOUT.toSeconds(), exited,
                        history.latest(), errors()));
            }
            Thread.sleep(20);
        }
    }

    private String errors() {
        StringBuilder b = new StringBuilder();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path p : files.filter(f -> f.toString().endsWith(".err")).toList()) {
                String s = Files.readString(p);
                if (!s.isBlank()) {
                    b.append(b.length() == 0 ? "" : " | ").append(p.getFileName()).append(": ")
                            .append(s.lines().filter(l -> !l.isBlank() && !l.startsWith("\tat ")).limit(6)
                                    .reduce((x, y) -> x + " / " + y).orElse(""));
                }
            }
        } catch (IOException e) {
            b.append(e);
        }
        return b.length() == 0 ? "no output" : b.toString();
    }

    private void stopWorkers() throws InterruptedException {
        List<Thread> stoppers = new ArrayList<>();
        for (WorkerProcess w : workers) {
            Thread t = new Thread(w::stop, "latchkey-faults-stop-" + w.id());
            t.start();
            stoppers.add(t);
        }
        for (Thread t : stoppers) {
            t.join();
        }
    }

    // --- the register ---

    private Object startH2() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try {
            org.h2.tools.Server h2 = org.h2.tools.Server.createTcpServer("-tcpPort", Integer.toString(port),
                    "-ifNotExists", "-baseDir", dir.toString()).start();
            registerUrl = "jdbc:h2:tcp://127.0.0.1:" + port + "/register;LOCK_TIMEOUT=5000";
            return h2;
        } catch (SQLException e) {
            throw new IllegalStateException("could not start the register's H2 server: " + e.getMessage(), e);
        }
    }

    private static void stopH2(Object h2) {
        if (h2 != null) {
            ((org.h2.tools.Server) h2).stop();
        }
    }

    private void prepareRegister() {
        try (Connection c = DriverManager.getConnection(registerUrl)) {
            FencingGuard.create(new UrlDataSource(registerUrl), FENCING_TABLE, true);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS " + REGISTER_TABLE
                        + " (name VARCHAR(200) NOT NULL PRIMARY KEY, val BIGINT NOT NULL)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + REGISTER_TABLE
                    + " (name, val) VALUES (?, 0)")) {
                ps.setString(1, name);
                ps.executeUpdate();
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare the register at "
                    + ProxiedUri.backend(registerUrl) + ": " + e.getMessage(), e);
        }
    }

    /** The register kept in the lock's fenced store: its value, 0 if no write was ever applied. */
    private long readStoreRegister() {
        try (io.latchkey.LockClient client = io.latchkey.LockClient.connect(server.uri())) {
            return client.fencedStore(name).getString(STORE_KEY).map(Long::parseLong).orElse(0L);
        } catch (RuntimeException e) {
            throw new IllegalStateException("could not read the register in the lock's store: " + e.getMessage(), e);
        }
    }

    private long readRegister() {
        try (Connection c = DriverManager.getConnection(registerUrl);
             PreparedStatement ps = c.prepareStatement("SELECT val FROM " + REGISTER_TABLE + " WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the register: " + e.getMessage(), e);
        }
    }

    private static void deleteQuietly(Path dir) {
        if (dir == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }
}
