package io.latchkey.cli.faults;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import io.latchkey.jdbc.FencingGuard;

/**
 * {@code latchkey verify --faults}: starts worker processes ({@link FaultWorkerMain}, {@link WorkerPool}) that contend
 * on one lock name and write a fenced register ({@link FaultRegister}), injects the {@link FaultSchedule}'s faults
 * ({@link FaultInjector}), then checks the merged {@link History} ({@link HistoryChecker}) and prints one row per
 * fault ({@link FaultReport}); a soak run also samples the workers and the server ({@link SoakSampler}).
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

    /** How long a run waits for writes to be accepted again after a server fault before it goes on. */
    static final Duration RECOVERY_BOUND = Duration.ofSeconds(90);
    /** How far a clock jump moves the server's wall clock: far past any lease. */
    static final Duration CLOCK_JUMP = Duration.ofHours(1);

    /** Generous: a loaded 2-core machine takes long to start three JVMs that load a driver each. */
    static final Duration WORKER_START_TIMEOUT = Duration.ofSeconds(150);

    private final Options options;
    private final PrintWriter out;
    private final History history = new History();
    private final List<FaultWindow> windows = new ArrayList<>();
    private final String name = "latchkey-faults-" + UUID.randomUUID().toString().substring(0, 8);
    private ServerControl server;
    private WorkerPool workers;
    private FaultInjector injector;
    private SoakSampler soak;
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
        Path dir = null;
        FaultRegister register = null;
        StallMonitor stalls = new StallMonitor();
        try {
            dir = Files.createTempDirectory("latchkey-faults-");
            server = options.embedded() != null ? EmbeddedServers.start(options.embedded(), dir, options.lease(),
                    options.wants(FaultKind.PARTITION_SERVER) || options.wants(FaultKind.PARTITION_LEADER)
                    || options.wants(FaultKind.SPLIT_BRAIN))
                    : ServerControl.external(options.uri());
            register = new FaultRegister(options.resource(), name, dir);
            register.prepare();
            workers = new WorkerPool(options, name, dir, server, register, history);
            injector = new FaultInjector(server, workers, history, out);
            soak = new SoakSampler(server, workers, history, out);
            FaultSchedule schedule = FaultSchedule.plan(server, options.lease(), options.duration(), options.skip(),
                    options.only());
            out.printf("fault run on %s: %d worker processes on lock %s, lease %s, fenced register in %s%n",
                    server.description(), options.workers(), name, FaultSchedule.seconds(options.lease()),
                    register.description());
            if (server.serverFaults().isEmpty()) {
                out.println("only client-side faults run: the verifier did not start this server");
            }
            out.println("schedule:");
            schedule.describe().forEach(out::println);
            out.flush();
            for (int i = 0; i < options.workers(); i++) {
                workers.spawn();
            }
            workers.awaitStarted();
            long runEnd = inject(schedule);
            workers.stop();
            long finalValue = register.read(server);
            Duration wait = workers.workerWait();
            Duration stuckBound = wait.plus(workers.workerTimeout().multipliedBy(2)).plus(options.lease())
                    .plusSeconds(5);
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
                out.print(soak.table(injected));
                for (String v : soak.violations()) {
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
            return new Result(rows, passed, table, soak.samples());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (workers != null) {
                workers.close();
            }
            if (register != null) {
                register.close();
            }
            stalls.close();
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
        Duration soakLength = options.soak();
        if (soakLength != null) {
            soak.sample("start", start, injected);
        }
        long soakEnd = soakLength == null ? 0 : start + soakLength.toNanos();
        List<FaultKind> steps = schedule.steps();
        for (int i = 0; soakLength == null ? i < steps.size()
                : !steps.isEmpty() && System.nanoTime() - soakEnd < 0; i++) {
            FaultKind kind = steps.get(i % steps.size());
            long faultStart = System.nanoTime();
            FaultWindow w = injector.inject(kind, schedule.faultLength());
            windows.add(w);
            out.printf("  %s %s%n", kind.label(), w.target().isEmpty() ? "done" : "on " + w.target()
                    + (w.targetToken() >= 0 ? " (token " + w.targetToken() + ")" : " (held nothing)"));
            out.flush();
            if (kind.serverSide()) {
                awaitRecovery(faultStart);
            }
            injected++;
            long elapsed = System.nanoTime() - faultStart;
            long rest = soakLength != null ? SOAK_PERIOD.toNanos() - elapsed
                    : schedule.settle().toNanos() + (kind.lasts() ? schedule.faultLength().toNanos() : 0) - elapsed;
            Thread.sleep(Math.max(schedule.settle().toMillis(), TimeUnit.NANOSECONDS.toMillis(Math.max(0, rest))));
            if (soakLength != null && soak.count() == 1 && System.nanoTime() - start >= soakLength.toNanos() / 2) {
                soak.sample("middle", start, injected);
            }
        }
        if (soakLength != null) {
            if (soak.count() == 1) {
                soak.sample("middle", start, injected);
            }
            soak.sample("end", start, injected);
        }
        long end = System.nanoTime();
        for (int i = 0; i < windows.size(); i++) {
            long next = i + 1 < windows.size() ? windows.get(i + 1).start() : end;
            windows.set(i, windows.get(i).withWindowEnd(next));
        }
        return end;
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
