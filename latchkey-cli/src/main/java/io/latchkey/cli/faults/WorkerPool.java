package io.latchkey.cli.faults;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The worker processes of a fault run ({@link WorkerProcess}): starts them (each behind {@link TcpProxy proxies} of
 * its own when the server's URI allows, or the first one on the master's or leader's side of a split), waits until
 * they connected, picks the holder a fault hits, and stops them in order at the end ({@link #close()} kills any left).
 */
final class WorkerPool implements AutoCloseable {

    private final FaultRun.Options options;
    private final String name;
    private final Path dir;
    private final ServerControl server;
    private final FaultRegister register;
    private final History history;
    private final List<WorkerProcess> workers = new ArrayList<>();
    private final Map<String, List<TcpProxy>> proxies = new HashMap<>();
    private int nextWorker = 1;
    /** The live worker that runs on the master's side of a split brain, or {@code null}. */
    private WorkerProcess masterSide;

    WorkerPool(FaultRun.Options options, String name, Path dir, ServerControl server, FaultRegister register,
               History history) {
        this.options = options;
        this.name = name;
        this.dir = dir;
        this.server = server;
        this.register = register;
        this.history = history;
    }

    /** The worker on the master's (or old leader's) side of a split, or {@code null}. */
    WorkerProcess masterSide() {
        return masterSide;
    }

    /** The ids of the live workers. */
    List<String> alive() {
        return workers.stream().filter(WorkerProcess::isAlive).map(WorkerProcess::id).toList();
    }

    /** The proxies between a worker and the server. */
    List<TcpProxy> proxiesOf(String id) {
        return proxies.get(id);
    }

    /** How long a worker waits for the lock per attempt: the lease, at least 1 s. */
    Duration workerWait() {
        return options.lease().compareTo(Duration.ofSeconds(1)) > 0 ? options.lease() : Duration.ofSeconds(1);
    }

    /** A worker's command timeout: half the lease, at least 500 ms. */
    Duration workerTimeout() {
        Duration half = options.lease().dividedBy(2);
        return half.compareTo(Duration.ofMillis(500)) > 0 ? half : Duration.ofMillis(500);
    }

    /** Starts one more worker ({@code w1}, {@code w2}, …). */
    void spawn() {
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
        List<String> args = new ArrayList<>(List.of("--id", id, "--name", name, "--table", FaultRun.REGISTER_TABLE,
                "--lease", Long.toString(options.lease().toMillis()),
                "--hold", Long.toString(hold), "--wait", Long.toString(workerWait().toMillis()),
                "--timeout", Long.toString(workerTimeout().toMillis())));
        if (options.soak() != null) {
            args.addAll(List.of("--sample", Long.toString(SoakSampler.SAMPLE_EVERY.toMillis())));
        }
        if (sided) {
            // The first worker (and the replacement of a killed one) runs where it stays with the master or leader,
            // reaching the servers directly (its namespace's loopback is not the verifier's, where the proxies are).
            masterSide = WorkerProcess.start(id, args, Map.of("URI", uri, "REGISTER", register.masterSideUrl(server)),
                    dir.resolve(id + ".err"), history, server::onMasterSide);
            workers.add(masterSide);
            return;
        }
        workers.add(WorkerProcess.start(id, args, Map.of("URI", uri, "REGISTER", register.url()),
                dir.resolve(id + ".err"), history));
    }

    /** Waits until every worker connected, at most {@link FaultRun#WORKER_START_TIMEOUT}. */
    void awaitStarted() throws InterruptedException {
        long deadline = System.nanoTime() + FaultRun.WORKER_START_TIMEOUT.toNanos();
        while (history.count(HistoryEvent.Type.START) < workers.size()) {
            if (System.nanoTime() - deadline > 0 || workers.stream().anyMatch(w -> !w.isAlive())) {
                String exited = workers.stream().filter(w -> !w.isAlive()).map(WorkerProcess::id).toList().toString();
                throw new IllegalStateException(String.format("the worker processes did not connect within %ds "
                        + "(exited: %s; latest events: %s): %s", FaultRun.WORKER_START_TIMEOUT.toSeconds(), exited,
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

    /**
     * A worker that was just granted the lock ({@code betweenReadAndWrite}: that has just read the register under it),
     * or any live worker if none is within three leases.
     */
    WorkerProcess holder(boolean betweenReadAndWrite) throws InterruptedException {
        return holder(betweenReadAndWrite, null);
    }

    /** @param not a worker not to pick, or {@code null} */
    WorkerProcess holder(boolean betweenReadAndWrite, WorkerProcess not) throws InterruptedException {
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

    /** Stops every worker in order (each on a thread of its own, at once) and waits until they exited. */
    void stop() throws InterruptedException {
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

    /** Kills any worker still alive and closes the proxies. */
    @Override
    public void close() {
        for (WorkerProcess w : workers) {
            if (w.isAlive()) {
                w.kill();
            }
        }
        proxies.values().forEach(list -> list.forEach(TcpProxy::close));
    }
}
