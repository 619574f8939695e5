package io.latchkey.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The benchmark's command-line flags. Every suite (Redis, ZooKeeper, JDBC) reads the timing flags from here so that
 * one command line governs the whole run.
 */
public final class BenchOptions {

    static final String USAGE = String.join("\n",
            "usage: bench [flags]        side-by-side tables (Markdown on stdout)",
            "       bench jmh [JMH args] JMH microbenchmarks, e.g. 'jmh RedisLockCycleBenchmark -prof gc'",
            "  --redis URI          benchmark against this Redis (default: start redis-server from the PATH on a free port)",
            "  --warmup SECONDS     warm-up per run (default 3)",
            "  --measure SECONDS    measurement window per run (default 5)",
            "  --repeats N          runs per row and side, interleaved; the median is reported (default 3)",
            "  --threads N          the multi-threaded rows' thread count (default 16)",
            "  --lease SECONDS      lease of the fixed-lease rows (default 10)",
            "  --suites LIST        comma-separated: redis, redis-sync, redis-scale, zookeeper, jdbc, sizing, or all that are present (default redis)",
            "  --rows TEXT[,TEXT]   only the rows whose label contains one of these, e.g. 'semaphore,fair lock';",
            "                       sizing: the topologies redis-1, redis-cluster, zookeeper-1, zookeeper-3, etcd-1,",
            "                       etcd-3, postgresql (e.g. --rows redis,etcd-3)",
            "  --no-trace           skip the short MONITOR pass that counts round trips per cycle",
            "  --names N            redis-scale: distinct names locked and released (default 100000)",
            "  --held N             redis-scale, sizing: locks held at once under the watchdog (default 20000)",
            "  --waiters N          redis-scale: threads waiting on one name across 20 clients (default 1000)",
            "  --watchdog SECONDS   redis-scale, sizing: watchdog timeout of the held locks (default 15: renewal every 5 s)",
            "  --out FILE           also write the Markdown report to FILE",
            "  --quick              smoke test: 0.3 s warm-up, 1 s measure, 1 repeat",
            "  --help               this text");

    private String redisUri;
    private Duration warmup = Duration.ofSeconds(3);
    private Duration measure = Duration.ofSeconds(5);
    private int repeats = 3;
    private int threads = 16;
    private Duration lease = Duration.ofSeconds(10);
    private List<String> suites = List.of("redis");
    private List<String> rows = List.of();
    private String out;
    private boolean help;
    private boolean trace = true;
    private int names = 100_000;
    private int held = 20_000;
    private int waiters = 1_000;
    private Duration watchdog = Duration.ofSeconds(15);

    public static BenchOptions parse(String... args) {
        BenchOptions o = new BenchOptions();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            switch (flag) {
                case "--quick" -> o.quick();
                case "--help", "-h" -> o.help = true;
                case "--no-trace" -> o.trace = false;
                case "--redis" -> o.redisUri = value(args, ++i, flag);
                case "--warmup" -> o.warmup = seconds(value(args, ++i, flag), flag, true);
                case "--measure" -> o.measure = seconds(value(args, ++i, flag), flag, false);
                case "--lease" -> o.lease = seconds(value(args, ++i, flag), flag, false);
                case "--repeats" -> o.repeats = positiveInt(value(args, ++i, flag), flag);
                case "--threads" -> o.threads = positiveInt(value(args, ++i, flag), flag);
                case "--out" -> o.out = value(args, ++i, flag);
                case "--suites" -> o.suites = list(value(args, ++i, flag), flag);
                case "--rows" -> o.rows = list(value(args, ++i, flag), flag);
                case "--names" -> o.names = positiveInt(value(args, ++i, flag), flag);
                case "--held" -> o.held = positiveInt(value(args, ++i, flag), flag);
                case "--waiters" -> o.waiters = positiveInt(value(args, ++i, flag), flag);
                case "--watchdog" -> o.watchdog = seconds(value(args, ++i, flag), flag, false);
                default -> throw new IllegalArgumentException(
                        String.format("unknown flag '%s'%n%s", flag, USAGE));
            }
        }
        return o;
    }

    /** Short runs for a smoke test: proves the harness and every contender work, says little about speed. */
    public BenchOptions quick() {
        warmup = Duration.ofMillis(300);
        measure = Duration.ofSeconds(1);
        repeats = 1;
        return this;
    }

    public BenchOptions redisUri(String uri) {
        this.redisUri = uri;
        return this;
    }

    public BenchOptions measure(Duration measure) {
        this.measure = measure;
        return this;
    }

    public BenchOptions warmup(Duration warmup) {
        this.warmup = warmup;
        return this;
    }

    public BenchOptions threads(int threads) {
        this.threads = threads;
        return this;
    }

    /** The Redis URI given with {@code --redis}, or null to start a server. */
    public String redisUri() {
        return redisUri;
    }

    public Duration warmup() {
        return warmup;
    }

    public Duration measure() {
        return measure;
    }

    public int repeats() {
        return repeats;
    }

    public int threads() {
        return threads;
    }

    public Duration lease() {
        return lease;
    }

    public List<String> suites() {
        return suites;
    }

    /** Lower-case label fragments; a row runs when its label contains one of them. Empty: every row. */
    public List<String> rows() {
        return rows;
    }

    /** Whether {@code --rows} selects the row labelled {@code label}. */
    public boolean selects(String label) {
        String l = label.toLowerCase(Locale.ROOT);
        return rows.isEmpty() || rows.stream().anyMatch(l::contains);
    }

    public String out() {
        return out;
    }

    /** Whether to count round trips per cycle in a short traced pass after the measured runs. */
    public boolean trace() {
        return trace;
    }

    /** redis-scale: how many distinct names are locked and released. */
    public int names() {
        return names;
    }

    /** redis-scale: how many locks are held at once under the watchdog. */
    public int held() {
        return held;
    }

    /** redis-scale: how many threads wait on one name. */
    public int waiters() {
        return waiters;
    }

    /** redis-scale: the watchdog timeout of the held locks (renewal every third of it). */
    public Duration watchdog() {
        return watchdog;
    }

    public boolean help() {
        return help;
    }

    public String describe() {
        return String.format("warm-up %s s, measure %s s, %d repeat%s per row and side (median reported), "
                        + "multi-thread rows at %d threads, fixed lease %s s%s",
                seconds(warmup), seconds(measure), repeats, repeats == 1 ? "" : "s", threads, seconds(lease),
                rows.isEmpty() ? "" : ", only rows matching " + String.join(" or ", rows));
    }

    private static String seconds(Duration d) {
        return d.toMillis() % 1000 == 0 ? Long.toString(d.toSeconds()) : String.format(Locale.ROOT, "%.1f", d.toMillis() / 1000.0);
    }

    private static String value(String[] args, int i, String flag) {
        if (i >= args.length) {
            throw new IllegalArgumentException(String.format("flag %s needs a value%n%s", flag, USAGE));
        }
        return args[i];
    }

    private static List<String> list(String text, String flag) {
        List<String> list = new ArrayList<>();
        for (String s : text.split(",")) {
            if (!s.isBlank()) {
                list.add(s.trim().toLowerCase(Locale.ROOT));
            }
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException(String.format("%s needs at least one name but was '%s'", flag, text));
        }
        return List.copyOf(list);
    }

    private static Duration seconds(String text, String flag, boolean zeroAllowed) {
        double s;
        try {
            s = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(String.format("%s must be a number of seconds but was '%s'", flag, text));
        }
        if (s < 0 || (!zeroAllowed && s == 0) || Double.isNaN(s) || Double.isInfinite(s)) {
            throw new IllegalArgumentException(String.format("%s must be %s but was %s", flag,
                    zeroAllowed ? "zero or more seconds" : "a positive number of seconds", text));
        }
        return Duration.ofNanos((long) (s * 1e9));
    }

    private static int positiveInt(String text, String flag) {
        try {
            int n = Integer.parseInt(text);
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException ignored) {
            // falls through to the message below
        }
        throw new IllegalArgumentException(String.format("%s must be a positive integer but was '%s'", flag, text));
    }
}
