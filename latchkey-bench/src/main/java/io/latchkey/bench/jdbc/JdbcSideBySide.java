package io.latchkey.bench.jdbc;

import static io.latchkey.bench.ProgramArgs.option;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.testing.sql.PostgresServer;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The SQL rows of the benchmark: Latchkey's lease-table lock and Spring Integration's {@code JdbcLockRegistry} on
 * the same PostgreSQL, the same pool settings, in one run.
 *
 * <ul>
 *   <li>uncontended lock+unlock cycles/s with 1 and 8 threads, each thread on its own lock name;</li>
 *   <li>hand-off latency between two clients (two "processes"): the time from one holder's {@code unlock()} to the
 *       return of the other client's waiting {@code lock()} (p50, p99). The holder keeps the lock a random 10–40 ms
 *       so that the waiter is parked, as it would be in production.</li>
 * </ul>
 *
 * <p>Usage: {@code JdbcSideBySide [--jdbc-url URL] [--seconds N] [--handoffs N]}. Without a URL it starts a
 * PostgreSQL 15 from the Debian binaries in a temporary directory (as the tests do).
 */
public final class JdbcSideBySide {

    private JdbcSideBySide() {
    }

    public static void main(String[] args) throws Exception {
        String url = option(args, "--jdbc-url", null);
        int seconds = Integer.parseInt(option(args, "--seconds", "5"));
        int handoffs = Integer.parseInt(option(args, "--handoffs", "150"));
        PostgresServer server = null;
        if (url == null) {
            server = new PostgresServer();
            server.start();
            url = server.jdbcUrl();
        }
        try (HikariDataSource ds = pool(url)) {
            try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                s.execute(SpringJdbcContender.DDL);
            }
            List<Function<DataSource, SqlContender>> contenders = List.of(LatchkeyContender::new,
                    SpringJdbcContender::new);
            List<String[]> rows = new ArrayList<>();
            double[][] results = new double[contenders.size()][4];
            String[] names = new String[contenders.size()];
            for (int i = 0; i < contenders.size(); i++) {
                try (SqlContender a = contenders.get(i).apply(ds); SqlContender b = contenders.get(i).apply(ds)) {
                    names[i] = a.name();
                    System.out.printf("%s: warm-up…%n", a.name());
                    cycles(a, 8, 2, "warm");
                    results[i][0] = cycles(a, 1, seconds, "c1");
                    results[i][1] = cycles(a, 8, seconds, "c8");
                    long[] lat = handOffs(a, b, handoffs);
                    results[i][2] = lat[lat.length / 2] / 1e6;
                    results[i][3] = lat[(int) Math.min(lat.length - 1, Math.ceil(lat.length * 0.99) - 1)] / 1e6;
                    System.out.printf("%s: 1 thread %.0f cycles/s, 8 threads %.0f cycles/s, hand-off p50 %.2f ms, p99 %.2f ms%n",
                            a.name(), results[i][0], results[i][1], results[i][2], results[i][3]);
                }
            }
            System.out.println();
            System.out.println("PostgreSQL " + (server != null ? "15 (local, fsync off)" : url.replaceAll("\\?.*", ""))
                    + ", pool of 16, " + Runtime.getRuntime().availableProcessors() + " cores");
            System.out.println("| row | " + names[0] + " | " + names[1] + " | ratio |");
            System.out.println("|---|---:|---:|---:|");
            row("uncontended lock+unlock, 1 thread (cycles/s)", results[0][0], results[1][0], true);
            row("uncontended lock+unlock, 8 threads (cycles/s)", results[0][1], results[1][1], true);
            row("hand-off between clients, p50 (ms)", results[0][2], results[1][2], false);
            row("hand-off between clients, p99 (ms)", results[0][3], results[1][3], false);
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private static void row(String label, double latchkey, double spring, boolean higherIsBetter) {
        String ratio = higherIsBetter ? String.format(Locale.ROOT, "%.1f× faster", latchkey / spring)
                : String.format(Locale.ROOT, "%.1f× lower (1/%.0f)", spring / latchkey, spring / latchkey);
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f | %s |%n", label, latchkey, spring, ratio);
    }

    /** Lock+unlock cycles per second with {@code threads} threads on distinct names. */
    static double cycles(SqlContender contender, int threads, int seconds, String tag) throws InterruptedException {
        LongAdder done = new LongAdder();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(threads);
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Lock lock = contender.lock("bench-" + tag + "-" + t);
            Thread th = new Thread(() -> {
                started.countDown();
                while (!stop.get()) {
                    lock.lock();
                    lock.unlock();
                    done.increment();
                }
            }, "bench-cycles-" + t);
            th.setDaemon(true);
            ts.add(th);
            th.start();
        }
        started.await();
        long start = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
        long count = done.sum();
        long elapsed = System.nanoTime() - start;
        stop.set(true);
        for (Thread th : ts) {
            th.join(10_000);
        }
        return count / (elapsed / 1e9);
    }

    /** Sorted nanoseconds from {@code a}'s unlock to {@code b}'s lock returning, {@code n} times. */
    static long[] handOffs(SqlContender a, SqlContender b, int n) throws Exception {
        String name = "bench-handoff-" + System.nanoTime();
        Lock la = a.lock(name);
        Lock lb = b.lock(name);
        long[] samples = new long[n];
        for (int i = 0; i < n; i++) {
            la.lock();
            long[] releasedAt = new long[1];
            long[] acquiredAt = new long[1];
            CountDownLatch waiting = new CountDownLatch(1);
            Thread waiter = new Thread(() -> {
                waiting.countDown();
                lb.lock();
                acquiredAt[0] = System.nanoTime();
                lb.unlock();
            }, "bench-handoff-waiter");
            waiter.setDaemon(true);
            waiter.start();
            waiting.await();
            Thread.sleep(ThreadLocalRandom.current().nextInt(10, 41));
            releasedAt[0] = System.nanoTime();
            la.unlock();
            waiter.join(30_000);
            samples[i] = acquiredAt[0] - releasedAt[0];
        }
        Arrays.sort(samples);
        return samples;
    }

    private static HikariDataSource pool(String url) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(16);
        c.setMinimumIdle(16);
        c.setPoolName("bench-sql");
        return new HikariDataSource(c);
    }

}
