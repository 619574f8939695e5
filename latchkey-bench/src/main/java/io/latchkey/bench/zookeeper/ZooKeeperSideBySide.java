package io.latchkey.bench.zookeeper;

import static io.latchkey.bench.ProgramArgs.option;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import io.latchkey.zookeeper.ZooKeeperLockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The ZooKeeper rows of the benchmark: Latchkey's ZooKeeper lock and Curator's {@code InterProcessMutex} on the same
 * embedded ZooKeeper server, in one run, each with one client (one session) shared by all its threads:
 *
 * <ul>
 *   <li>lock+unlock cycles/s with 1 thread and 16 threads, each thread on its own path (uncontended);</li>
 *   <li>lock+unlock cycles/s with 16 threads on one path (contended);</li>
 *   <li>the same uncontended rows as users write them: {@code client.lock(name)} each cycle on Latchkey's side
 *       (the handle made, the name checked, each time), against Curator's mutexes made once.</li>
 * </ul>
 *
 * <p>Rows alternate between the two contenders and the best of {@code --rounds} runs is kept, so that a noisy
 * shared machine penalises both alike. The server runs with {@code forceSync=no} (no fsync per transaction) so the
 * rows measure the clients and the protocol rather than the disk.
 *
 * <p>Usage: {@code ZooKeeperSideBySide [--connect host:port] [--seconds N] [--rounds N] [--rtt-us N]
 * [--rows A,B]}; {@code --rows} keeps the rows whose label contains one of the words; without
 * {@code --connect} it starts an {@link EmbeddedZooKeeper}; {@code --rtt-us} puts a {@link LatencyProxy} adding that
 * round-trip latency between both clients and the server (loopback round trips are nearly free, a data centre's
 * are not, and the round trips saved are what Latchkey's pipelining buys).
 */
public final class ZooKeeperSideBySide {

    private ZooKeeperSideBySide() {
    }

    /** One side of the comparison: a lock factory on one shared client. */
    interface Contender extends AutoCloseable {
        String name();

        /**
         * A lock+unlock cycle body for a thread working on {@code path}; {@code perCycle}: the lock handle is made
         * in each cycle, as users call it, where the side has handles that cheap to make.
         */
        Cycle cycleOn(String path, boolean perCycle) throws Exception;

        @Override
        void close();
    }

    @FunctionalInterface
    interface Cycle {
        void run() throws Exception;
    }

    static final class LatchkeyContender implements Contender {
        private final ZooKeeperLockClient client;

        LatchkeyContender(String connectString) {
            client = ZooKeeperLockClient.connect("zookeeper://" + connectString,
                    ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(30)).build());
        }

        @Override
        public String name() {
            return "Latchkey";
        }

        @Override
        public Cycle cycleOn(String path, boolean perCycle) {
            if (perCycle) {
                return () -> {
                    DistributedLock lock = client.lock(path);
                    lock.lock();
                    lock.unlock();
                };
            }
            DistributedLock lock = client.lock(path);
            return () -> {
                lock.lock();
                lock.unlock();
            };
        }

        @Override
        public void close() {
            client.close();
        }
    }

    static final class CuratorContender implements Contender {
        private final CuratorFramework curator;
        private final java.util.Map<String, InterProcessMutex> mutexes = new java.util.concurrent.ConcurrentHashMap<>();

        CuratorContender(String connectString) throws InterruptedException {
            curator = CuratorFrameworkFactory.builder().connectString(connectString).sessionTimeoutMs(30_000)
                    .retryPolicy(new ExponentialBackoffRetry(50, 5, 1000)).build();
            curator.start();
            curator.blockUntilConnected(10, TimeUnit.SECONDS);
        }

        @Override
        public String name() {
            return "Curator";
        }

        @Override
        public Cycle cycleOn(String path, boolean perCycle) {
            // made once even in the per-cycle rows: an InterProcessMutex keeps its reentrancy counts in the
            // instance, so users keep one per path; one InterProcessMutex per path, shared by the threads on it (it is thread-safe: one node per thread)
            InterProcessMutex mutex = mutexes.computeIfAbsent(path,
                    p -> new InterProcessMutex(curator, "/curator-bench/" + p));
            return () -> {
                mutex.acquire();
                mutex.release();
            };
        }

        @Override
        public void close() {
            curator.close();
        }
    }

    public static void main(String[] args) throws Exception {
        String connect = option(args, "--connect", null);
        int seconds = Integer.parseInt(option(args, "--seconds", "5"));
        int rounds = Integer.parseInt(option(args, "--rounds", "2"));
        long rttMicros = Long.parseLong(option(args, "--rtt-us", "0"));
        List<String> rowFilter = List.of(option(args, "--rows", "").split(",")).stream()
                .filter(w -> !w.isBlank()).map(w -> w.toLowerCase(Locale.ROOT)).toList();
        EmbeddedZooKeeper server = null;
        if (connect == null) {
            System.setProperty("zookeeper.forceSync", "no");
            server = EmbeddedZooKeeper.start();
            connect = server.connectString();
        }
        String statsAddress = connect; // the server itself, not the proxy: "srvr" counts the requests it received
        LatencyProxy proxy = null;
        if (rttMicros > 0) {
            int port = Integer.parseInt(connect.substring(connect.lastIndexOf(':') + 1));
            proxy = new LatencyProxy(port, rttMicros / 2);
            connect = "127.0.0.1:" + proxy.port();
        }
        try (LatchkeyContender latchkey = new LatchkeyContender(connect);
             CuratorContender curator = new CuratorContender(connect)) {
            List<Contender> contenders = List.of(latchkey, curator);
            String[] allNames = {"1 thread, distinct paths", "16 threads, distinct paths", "16 threads, one path",
                "1 thread, distinct paths, lock(name) per cycle", "16 threads, distinct paths, lock(name) per cycle"};
            int[][] allShapes = {{1, 0, 0}, {16, 0, 0}, {16, 1, 0}, {1, 0, 1}, {16, 0, 1}};
            List<Integer> kept = new ArrayList<>();
            for (int r = 0; r < allNames.length; r++) {
                String label = allNames[r].toLowerCase(Locale.ROOT);
                if (rowFilter.isEmpty() || rowFilter.stream().anyMatch(label::contains)) {
                    kept.add(r);
                }
            }
            String[] rowNames = kept.stream().map(r -> allNames[r]).toArray(String[]::new);
            int[][] shapes = kept.stream().map(r -> allShapes[r]).toArray(int[][]::new);
            double[][] best = new double[rowNames.length][contenders.size()];
            double[][] requests = new double[rowNames.length][contenders.size()];
            for (Contender c : contenders) {
                System.out.printf("%s: warm-up…%n", c.name());
                run(c, 4, false, false, 2, "warm");
                run(c, 4, false, true, 1, "warm-per-cycle");
            }
            for (int round = 0; round < rounds; round++) {
                for (int r = 0; r < rowNames.length; r++) {
                    for (int i = 0; i < contenders.size(); i++) {
                        Contender c = contenders.get(i);
                        long received = received(statsAddress);
                        Measured m = run(c, shapes[r][0], shapes[r][1] == 1, shapes[r][2] == 1, seconds, "r" + round + "x" + r);
                        double rate = m.perSecond();
                        requests[r][i] = (received(statsAddress) - received) / (double) Math.max(1, m.cycles());
                        System.out.printf(Locale.ROOT, "round %d, %-50s %-8s %,10.0f cycles/s%n", round + 1,
                                rowNames[r], c.name(), rate);
                        best[r][i] = Math.max(best[r][i], rate);
                    }
                }
            }
            System.out.println();
            System.out.printf("ZooKeeper %s (%s, forceSync=no%s), one client per side, %d cores, best of %d × %d s%n",
                    org.apache.zookeeper.Version.getFullVersion().split("-")[0],
                    server != null ? "embedded in this JVM" : connect,
                    rttMicros > 0 ? ", " + rttMicros + " µs added round-trip latency" : "",
                    Runtime.getRuntime().availableProcessors(), rounds, seconds);
            System.out.println("| lock+unlock cycles/s | Latchkey | Curator InterProcessMutex | ratio "
                    + "| requests per cycle, Latchkey / Curator |");
            System.out.println("|---|---:|---:|---:|---:|");
            for (int r = 0; r < rowNames.length; r++) {
                System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %.2f× | %.2f / %.2f |%n", rowNames[r],
                        best[r][0], best[r][1], best[r][0] / best[r][1], requests[r][0], requests[r][1]);
            }
            System.out.println("\nRequests per cycle: the server's received count (`srvr`) over the last round's run "
                    + "of the row, divided by its cycles (session pings included).");
        } finally {
            if (proxy != null) {
                proxy.close();
            }
            if (server != null) {
                server.close();
            }
        }
    }

    /**
     * What one {@link #run} measured: cycles per second in its measured time, and every cycle it ran, those finished
     * after that time included.
     */
    record Measured(double perSecond, long cycles) {
    }

    /** The requests the server at {@code hostPort} has received so far ({@code srvr}), or 0 if it does not say. */
    static long received(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        String srvr = FourLetterWords.ask(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)),
                "srvr");
        java.util.regex.Matcher m = RECEIVED.matcher(srvr);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    private static final java.util.regex.Pattern RECEIVED = java.util.regex.Pattern.compile("Received: (\\d+)");

    /**
     * Lock+unlock cycles of {@code threads} threads, each on its own path or all on one, for {@code seconds}; with
     * {@code perCycle} the lock handle is made in every cycle.
     */
    static Measured run(Contender c, int threads, boolean onePath, boolean perCycle, int seconds, String tag)
            throws Exception {
        LongAdder cycles = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (int t = 0; t < threads; t++) {
            String path = onePath ? "bench-" + tag : "bench-" + tag + "-" + t;
            Cycle cycle = c.cycleOn(path, perCycle);
            Thread w = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    while (!stop.get()) {
                        cycle.run();
                        cycles.increment();
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "bench-" + c.name() + "-" + t);
            workers.add(w);
            w.start();
        }
        ready.await();
        long start = System.nanoTime();
        go.countDown();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        stop.set(true);
        long done = cycles.sum();
        double elapsed = (System.nanoTime() - start) / 1e9;
        for (Thread w : workers) {
            w.join(TimeUnit.SECONDS.toMillis(30));
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException(c.name() + " failed: " + failures.get(0), failures.get(0));
        }
        return new Measured(done / elapsed, cycles.sum());
    }

}
