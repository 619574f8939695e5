package io.latchkey.cli;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code latchkey verify URI}: checks on a live backend, under contention between several clients, the properties the
 * library promises (mutual exclusion, fencing, lease expiry, lost signal, interruption) and prints one verdict per
 * property with its evidence. All clients run in this process, so the critical section is observed directly. Only
 * names under {@code --names-prefix} are touched, and they are released at the end.
 */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Check a backend's safety under real contention: mutual exclusion (no two holders, no lost "
                + "updates), fencing tokens strictly increasing in grant order, a fixed lease expiring for another "
                + "client, onLost and LockLostException after a force-unlock, no lock left by an interrupted waiter, "
                + "and the wake-up latency across clients.",
                "Prints PASS/FAIL/SKIP per check with its evidence; exit code 0 when none failed, 1 otherwise. "
                        + "Only lock names under --names-prefix are used, and they are released at the end."})
final class VerifyCommand implements Callable<Integer> {

    @Mixin
    GlobalOptions global;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", paramLabel = "URI",
            description = "The backend, e.g. redis://localhost:6379 or mem://verify (none with --faults --embedded).")
    String uri;

    @Option(names = "--faults", description = "Instead of the checks: run worker processes against the backend while "
            + "pausing, killing and partitioning holders (and, with --embedded, restarting and failing over the "
            + "server), then judge the history. See docs/faults.md.")
    boolean faults;

    @Option(names = "--embedded", paramLabel = "KIND", description = "With --faults: start the server itself "
            + "(redis, redis-sentinel, redis-cluster, zookeeper, zookeeper-ensemble, etcd, etcd-cluster, postgresql, mariadb, "
            + "postgresql-pgbouncer) so that "
            + "server faults run too. redis and redis-sentinel take Redis URI options for the workers: "
            + "redis-sentinel?replicaAcks=1.")
    String embedded;

    @Option(names = "--fault", paramLabel = "NAME", description = "With --faults: run only this fault (repeatable). "
            + "Every backend: pause-holder, kill-holder, partition-holder (URIs whose addresses the verifier can "
            + "proxy). With --embedded: server-restart (redis, zookeeper, etcd, postgresql, mariadb, postgresql-pgbouncer), failover "
            + "(redis-sentinel, redis-cluster, zookeeper-ensemble, etcd-cluster), clock-jump (postgresql, mariadb, postgresql-pgbouncer), "
            + "partition-server (redis, zookeeper, etcd, postgresql, mariadb, postgresql-pgbouncer, redis-sentinel, "
            + "redis-cluster, zookeeper-ensemble, etcd-cluster: the server in a network namespace of its own, cut off "
            + "for 2.5 leases; needs root), partition-leader (zookeeper-ensemble, etcd-cluster: the leader's link cut until a "
            + "new leader is elected; needs root), split-brain (redis-sentinel: the master keeps one worker but loses the "
            + "replica and the sentinels until they promoted the replica; needs root; KIND?replicaAcks=1 runs the "
            + "workers with replica acknowledgement). Default: every fault the backend has.")
    java.util.List<String> onlyFaults;

    @Option(names = "--soak", paramLabel = "DURATION", description = "With --faults: a soak run of DURATION (e.g. 30m): "
            + "a fault every 20s, cycling through the backend's faults (or those of --fault), judged by the same rules; "
            + "the workers' heap after a GC and live threads and the server's keys, rows or znodes are sampled at the "
            + "start, the middle and the end and must stay flat.")
    Duration soak;

    @Option(names = "--resource", paramLabel = "JDBC-URL", description = "With --faults: the database of the fenced "
            + "register (default: an H2 database hosted by the verifier).")
    String resource;

    @Option(names = "--register", paramLabel = "WHERE", description = "With --faults: where the fenced register "
            + "lives: 'database' (default: the --resource database, through FencingGuard) or 'store' (in the lock's "
            + "own fenced store, client.fencedStore: the lock's server refuses a stale holder's write itself).")
    String register;

    @Option(names = "--workers", paramLabel = "N", defaultValue = "3",
            description = "With --faults: worker processes (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--report", paramLabel = "FILE", description = "With --faults: also write the result as "
            + "FILE.html (a timeline per worker) or FILE.csv.")
    java.nio.file.Path report;

    @Option(names = "--clients", paramLabel = "N", defaultValue = "3",
            description = "Clients (connections) contending, as separate nodes would (default: ${DEFAULT-VALUE}).")
    int clientCount;

    @Option(names = "--threads", paramLabel = "N", defaultValue = "4",
            description = "Threads per client (default: ${DEFAULT-VALUE}).")
    int threads;

    @Option(names = "--duration", paramLabel = "DURATION", defaultValue = "5s",
            description = "How long the clients contend in the mutual exclusion check (default: ${DEFAULT-VALUE}).")
    Duration duration;

    @Option(names = "--names", paramLabel = "N", defaultValue = "3",
            description = "Lock names contended (default: ${DEFAULT-VALUE}).")
    int nameCount;

    @Option(names = "--lease", paramLabel = "DURATION", defaultValue = "1s",
            description = "The fixed lease of the expiry check (default: ${DEFAULT-VALUE}). With --faults: the "
                    + "workers' watchdog timeout, on ZooKeeper their session timeout (default there: 2s).")
    Duration lease;

    @Option(names = "--watchdog", paramLabel = "DURATION", defaultValue = "1500ms",
            description = "The clients' watchdog timeout; the lost-signal check waits about a third of it "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration watchdog;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "10",
            description = "Rounds of the interruption race and of the wake-up measurement (default: ${DEFAULT-VALUE}).")
    int rounds;

    @Option(names = "--names-prefix", paramLabel = "PREFIX",
            description = "Prefix of every lock name used (default: latchkey-verify-<random>).")
    String namesPrefix;

    @Override
    public Integer call() throws InterruptedException {
        if (faults || embedded != null || resource != null || register != null || report != null
                || onlyFaults != null || soak != null) {
            return VerifyFaults.run(this);
        }
        if (uri == null) {
            throw new CliException(CliException.USAGE, "missing the URI of the backend to verify");
        }
        checkArguments();
        String prefix = namesPrefix != null ? namesPrefix : "latchkey-verify-" + UUID.randomUUID().toString().substring(0, 8);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<LockClient> clients = new ArrayList<>();
        List<String> used = new ArrayList<>();
        List<CheckResult> results = new ArrayList<>();
        runner = Thread.currentThread();
        Thread hook = new Thread(this::stop, "latchkey-verify-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            try {
                for (int i = 0; i < clientCount; i++) {
                    clients.add(Connector.open(uri, global.timeout, ClientOptions.builder().watchdogTimeout(watchdog)));
                }
                out.printf("verifying %s: %d clients x %d threads, lock names %s-*%n", Connector.describe(uri),
                        clientCount, threads, prefix);
                out.flush();
                runChecks(clients, prefix, used, results);
            } catch (InterruptedException | CliException e) {
                if (!stopping) {
                    throw e;
                }
            } finally {
                // the clean-up talks to the backend: after Ctrl-C this thread's interrupt must not cut it short
                boolean interrupted = Thread.interrupted();
                cleanUp(clients, used);
                if (interrupted && !stopping) {
                    Thread.currentThread().interrupt();
                }
            }
            boolean failed = false;
            if (!results.isEmpty()) {
                TextTable table = new TextTable("check", "result", "evidence");
                for (CheckResult r : results) {
                    table.row(r.check(), r.status().name(), Secrets.mask(r.evidence()));
                    failed |= r.status() == CheckResult.Status.FAIL;
                }
                out.print(table.render());
            }
            if (stopping) {
                out.flush();
                err.printf("interrupted after %d of %d checks; every lock this run used is released%n",
                        results.size(), CHECKS);
                err.flush();
                return BenchCommand.INTERRUPTED;
            }
            out.println(failed ? "FAILED: the backend broke a promised property (see the rows marked FAIL)"
                    : "all checks passed");
            return failed ? 1 : 0;
        } finally {
            out.flush();
            finished.countDown();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: it waits for 'finished', counted down above
            }
        }
    }

    /** How many checks a full run makes (one row each). */
    private static final int CHECKS = 6;

    /** Set by {@link #stop()} (Ctrl-C, SIGTERM): the running check is interrupted, the rest are skipped. */
    private volatile boolean stopping;

    /** The thread running {@link #call()}, interrupted by {@link #stop()}. */
    private volatile Thread runner;

    /** Counted down once {@link #call()} has cleaned up and printed. */
    private final java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(1);

    /**
     * What Ctrl-C (SIGINT) and SIGTERM run, as a JVM shutdown hook: interrupt the running check (its worker threads
     * end their current hold), then wait (bounded) until {@link #call} has force-released every lock name of this
     * run, closed its clients and printed the rows of the checks done so far, so that no
     * {@code latchkey-verify-…} lock stays held until its lease runs out.
     */
    void stop() {
        stopping = true;
        Thread t = runner;
        if (t != null) {
            t.interrupt();
        }
        try {
            finished.await(global.timeout.toMillis() * 2 + 10_000, java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void checkArguments() {
        if (clientCount < 2 || clientCount > 64) {
            throw new CliException(CliException.USAGE, String.format("--clients must be 2..64 but was %d", clientCount));
        }
        if (threads < 1 || threads > 256) {
            throw new CliException(CliException.USAGE, String.format("--threads must be 1..256 but was %d", threads));
        }
        if (nameCount < 1 || nameCount > 100) {
            throw new CliException(CliException.USAGE, String.format("--names must be 1..100 but was %d", nameCount));
        }
        if (rounds < 1 || rounds > 10_000) {
            throw new CliException(CliException.USAGE, String.format("--rounds must be 1..10000 but was %d", rounds));
        }
        for (Duration d : List.of(duration, lease, watchdog)) {
            if (d.isNegative() || d.isZero()) {
                throw new CliException(CliException.USAGE, String.format(
                        "--duration, --lease and --watchdog must be positive but were %s, %s and %s",
                        Durations.format(duration), Durations.format(lease), Durations.format(watchdog)));
            }
        }
    }

    /** Runs the checks in order, adding each row to {@code results} as it ends (Ctrl-C prints those done). */
    private void runChecks(List<LockClient> clients, String prefix, List<String> used, List<CheckResult> results)
            throws InterruptedException {
        LockClient a = clients.get(0);
        LockClient b = clients.get(1);
        if (!a.capabilities().contains(Capability.LOCK)) {
            for (String check : List.of(ContentionCheck.MUTUAL_EXCLUSION, ContentionCheck.FENCING,
                    LeaseChecks.LEASE_EXPIRY, LeaseChecks.LOST_SIGNAL, InterruptionCheck.INTERRUPTION,
                    WakeUpLatencyCheck.WAKE_UP)) {
                results.add(CheckResult.skip(check, "the backend has no LOCK capability"));
            }
            return;
        }
        List<String> names = new ArrayList<>();
        for (int i = 0; i < nameCount; i++) {
            names.add(prefix + "-mutex-" + i);
        }
        used.addAll(names);
        List<Function<String, DistributedLock>> factories = new ArrayList<>();
        for (LockClient c : clients) {
            factories.add(c::lock);
        }
        Duration waitBound = global.timeout.multipliedBy(2).plusSeconds(5);
        try {
            ContentionCheck.Outcome o = new ContentionCheck(factories, names, threads, duration, waitBound).run();
            results.add(o.mutualExclusion());
            results.add(o.fencing());
            checkStopping();
        } catch (RuntimeException e) {
            results.add(CheckResult.fromFailure(ContentionCheck.MUTUAL_EXCLUSION, e));
            results.add(CheckResult.fromFailure(ContentionCheck.FENCING, e));
        }
        String expiry = used(used, prefix + "-expiry");
        checkStopping();
        results.add(guarded(LeaseChecks.LEASE_EXPIRY,
                () -> LeaseChecks.leaseExpiry(a.lock(expiry), b.lock(expiry), lease)));
        String lost = used(used, prefix + "-lost");
        checkStopping();
        results.add(guarded(LeaseChecks.LOST_SIGNAL,
                () -> LeaseChecks.lostSignal(a.lock(lost), b.lock(lost), watchdog)));
        String interrupt = used(used, prefix + "-interrupt");
        checkStopping();
        results.add(guarded(InterruptionCheck.INTERRUPTION,
                () -> InterruptionCheck.run(a.lock(interrupt), b.lock(interrupt), rounds)));
        String wake = used(used, prefix + "-wake-up");
        checkStopping();
        List<DistributedLock> wakeLocks = new ArrayList<>();
        for (LockClient c : clients) {
            wakeLocks.add(c.lock(wake));
        }
        results.add(guarded(WakeUpLatencyCheck.WAKE_UP, () -> WakeUpLatencyCheck.run(wakeLocks, rounds,
                a.capabilities().contains(Capability.PUSH_WAKEUP))));
    }

    /** A check that swallowed the interrupt (it reports a row instead) must not let the next one start. */
    private void checkStopping() throws InterruptedException {
        if (stopping) {
            throw new InterruptedException("stopped");
        }
    }

    private static String used(List<String> used, String name) {
        used.add(name);
        return name;
    }

    private interface Check {
        CheckResult run() throws InterruptedException;
    }

    private static CheckResult guarded(String name, Check check) throws InterruptedException {
        try {
            return check.run();
        } catch (RuntimeException e) {
            return CheckResult.fromFailure(name, e);
        }
    }

    /** Leaves nothing behind: any name still held (a failed check's hold) is force-released, then clients close. */
    private static void cleanUp(List<LockClient> clients, List<String> used) {
        if (!clients.isEmpty()) {
            for (String name : used) {
                try {
                    DistributedLock lock = clients.get(0).lock(name);
                    if (lock.isLocked()) {
                        lock.forceUnlock();
                    }
                } catch (RuntimeException e) {
                    // best effort: the check's row already reports what went wrong
                }
            }
        }
        for (LockClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                // best effort
            }
        }
    }
}
