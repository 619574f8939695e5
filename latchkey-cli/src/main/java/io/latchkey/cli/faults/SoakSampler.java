package io.latchkey.cli.faults;

import io.latchkey.cli.faults.FaultRun.SoakSample;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The samples of a soak run ({@code --soak}): the workers' heap after a GC and live threads (each worker sends them
 * every {@link #SAMPLE_EVERY}) and the server's objects, at the start, the middle and the end; printed as a table and
 * judged from the middle to the end ({@link #violations(List)}).
 */
final class SoakSampler {

    /** How often a soak run's workers sample their heap and threads. */
    static final Duration SAMPLE_EVERY = Duration.ofSeconds(5);
    /** A soak run fails if a worker's live threads grow by more than this from the start to the end. */
    static final int SOAK_THREAD_SLACK = 5;
    /** ... or its heap after a GC by more than half plus this. */
    static final long SOAK_HEAP_SLACK = 16L << 20;
    /** ... or the server's objects by more than this. */
    static final long SOAK_OBJECT_SLACK = 10;

    private final ServerControl server;
    private final WorkerPool workers;
    private final History history;
    private final PrintWriter out;
    private final List<SoakSample> samples = new ArrayList<>();

    SoakSampler(ServerControl server, WorkerPool workers, History history, PrintWriter out) {
        this.server = server;
        this.workers = workers;
        this.history = history;
        this.out = out;
    }

    /** The samples taken so far. */
    List<SoakSample> samples() {
        return List.copyOf(samples);
    }

    /** How many samples were taken. */
    int count() {
        return samples.size();
    }

    /**
     * A soak sample: the latest heap and thread sample of each live worker (each sends one every
     * {@link #SAMPLE_EVERY}; this waits for a fresh one) and the server's objects.
     *
     * @param injected faults injected so far
     */
    void sample(String label, long runStart, int injected) throws InterruptedException {
        long asked = System.nanoTime();
        Thread.sleep(SAMPLE_EVERY.toMillis() + 500);
        List<String> alive = workers.alive();
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
    String table(int injected) {
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "soak of %s: %d faults in %.0fs (one every %ds, cycling)%n", server.backend(), injected,
                samples.isEmpty() ? 0.0 : samples.get(samples.size() - 1).seconds(),
                FaultRun.SOAK_PERIOD.toSeconds()));
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

    /** What grew from this soak's middle to its end beyond the slack allowed; empty when flat. */
    List<String> violations() {
        return violations(samples);
    }

    /**
     * What grew from the soak's middle to its end beyond the slack allowed; empty when flat. The first half is the
     * warm-up: pools fill to their bounds (the SQL backend's I/O threads), caches and code warm up.
     */
    static List<String> violations(List<SoakSample> samples) {
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
}
