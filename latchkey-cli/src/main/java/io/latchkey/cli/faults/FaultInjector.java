package io.latchkey.cli.faults;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.Locale;

/**
 * Injects one fault of a run and returns its {@link FaultWindow}: pauses ({@code SIGSTOP}), kills or cuts off (its
 * proxies black-holed) the worker that holds the lock, or partitions, splits, crashes and restarts, fails over or
 * jumps the clock of the server. Each fault's start and end are stamped into the {@link History}; a server fault that
 * could not be injected is kept in its window's problem (its row fails and names it) and the run goes on.
 */
final class FaultInjector {

    private final ServerControl server;
    private final WorkerPool workers;
    private final History history;
    private final PrintWriter out;

    FaultInjector(ServerControl server, WorkerPool workers, History history, PrintWriter out) {
        this.server = server;
        this.workers = workers;
        this.history = history;
        this.out = out;
    }

    /** Injects {@code kind}; a fault that lasts ends after {@code length}. */
    FaultWindow inject(FaultKind kind, Duration length) throws InterruptedException {
        switch (kind) {
            case PAUSE:
                return pause(length);
            case KILL:
                return kill();
            case PARTITION:
                return partition(length);
            case PARTITION_SERVER:
            case PARTITION_LEADER:
            case SPLIT_BRAIN:
                return cutServer(kind, length);
            case SERVER_RESTART:
            case FAILOVER:
            case CLOCK_JUMP:
                return serverEvent(kind);
            default:
                throw new IllegalArgumentException("no such fault: " + kind);
        }
    }

    private FaultWindow pause(Duration length) throws InterruptedException {
        WorkerProcess target = workers.holder(true);
        long token = history.heldToken(target.id());
        target.pause();
        // stamped once the worker is frozen: a hold that ended before this stamp was not hit
        long start = mark(HistoryEvent.Type.FAULT_START, FaultKind.PAUSE, target.id());
        Thread.sleep(length.toMillis());
        target.resume();
        long end = mark(HistoryEvent.Type.FAULT_END, FaultKind.PAUSE, target.id());
        return new FaultWindow(FaultKind.PAUSE, target.id(), token, start, end, 0);
    }

    private FaultWindow kill() throws InterruptedException {
        WorkerProcess target = workers.holder(false);
        long token = history.heldToken(target.id());
        long start = mark(HistoryEvent.Type.FAULT_START, FaultKind.KILL, target.id());
        target.kill();
        long end = mark(HistoryEvent.Type.FAULT_END, FaultKind.KILL, target.id());
        workers.spawn();
        return new FaultWindow(FaultKind.KILL, target.id(), token, start, end, 0);
    }

    private FaultWindow partition(Duration length) throws InterruptedException {
        // not the worker on the leader's side: it reaches the servers directly, not through proxies
        WorkerProcess target = workers.holder(false, workers.masterSide());
        long token = history.heldToken(target.id());
        long start = mark(HistoryEvent.Type.FAULT_START, FaultKind.PARTITION, target.id());
        workers.proxiesOf(target.id()).forEach(TcpProxy::blackHole);
        Thread.sleep(length.toMillis());
        workers.proxiesOf(target.id()).forEach(TcpProxy::heal);
        long end = mark(HistoryEvent.Type.FAULT_END, FaultKind.PARTITION, target.id());
        return new FaultWindow(FaultKind.PARTITION, target.id(), token, start, end, 0);
    }

    /** A server partition, a leader partition or a split brain, healed after {@code length}. */
    private FaultWindow cutServer(FaultKind kind, Duration length) throws InterruptedException {
        long start = mark(HistoryEvent.Type.FAULT_START, kind, "");
        String problem = "";
        try {
            WorkerProcess masterSide = workers.masterSide();
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
            problem = firstLine(e);
        }
        long end = mark(HistoryEvent.Type.FAULT_END, kind, "");
        return new FaultWindow(kind, "", -1, start, end, 0, problem);
    }

    /** A server crashed and restarted, failed over, or its clock jumped. */
    private FaultWindow serverEvent(FaultKind kind) throws InterruptedException {
        long start = mark(HistoryEvent.Type.FAULT_START, kind, "");
        String problem = "";
        try {
            if (kind == FaultKind.SERVER_RESTART) {
                server.crash();
                Thread.sleep(1_000);
                server.restart();
            } else if (kind == FaultKind.CLOCK_JUMP) {
                server.jumpClock(FaultRun.CLOCK_JUMP);
            } else {
                server.failover();
            }
        } catch (RuntimeException e) {
            // judged like any broken rule: the row fails and names it; the run goes on
            problem = firstLine(e);
        }
        long end = mark(HistoryEvent.Type.FAULT_END, kind, "");
        return new FaultWindow(kind, "", -1, start, end, 0, problem);
    }

    private static String firstLine(RuntimeException e) {
        return e.getMessage() == null ? e.toString() : e.getMessage().strip().lines().findFirst().orElse("");
    }

    private long mark(HistoryEvent.Type type, FaultKind kind, String target) {
        HistoryEvent e = HistoryEvent.now(HistoryEvent.VERIFIER, type, -1, -1, kind.name() + " " + target);
        history.add(e);
        return e.nanos();
    }
}
