package io.latchkey.bench.jdbc;

import static io.latchkey.bench.ProgramArgs.option;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.ClientOptions;
import io.latchkey.jdbc.JdbcLockClient;
import io.latchkey.jdbc.JdbcOptions;
import io.latchkey.testing.sql.PostgresServer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Lock;
import java.util.function.Function;

/**
 * The SQL row of the {@code scale} suite: N distinct names locked and released once each (parallel threads, one
 * client per side on a pool of 16), then what is left in the lock table: rows, and {@code pg_total_relation_size}
 * (table, index and TOAST) right after and after a {@code VACUUM}, and again after a second batch of as many new
 * names (the dead space VACUUM made reusable is reused: the files do not grow with the names ever used). Latchkey's lease table against Spring
 * Integration's {@code JdbcLockRegistry} ({@code INT_LOCK}), on the same PostgreSQL.
 *
 * <p>Usage: {@code SqlScale [--jdbc-url URL] [--names N] [--threads N]}; without a URL it starts a PostgreSQL 15
 * from the Debian binaries in a temporary directory (as the tests do).
 */
public final class SqlScale {

    private SqlScale() {
    }

    /** One side: a lock by name, its table, and how to close it. */
    private record Side(String name, String table, Function<String, Lock> locks, AutoCloseable closer) { }

    public static void main(String[] args) throws Exception {
        String url = option(args, "--jdbc-url", null);
        int names = Integer.parseInt(option(args, "--names", "100000"));
        int threads = Integer.parseInt(option(args, "--threads", "8"));
        PostgresServer server = null;
        if (url == null) {
            server = new PostgresServer();
            server.start();
            url = server.jdbcUrl();
        }
        try (HikariDataSource ds = pool(url)) {
            exec(ds, SpringJdbcContender.DDL);
            exec(ds, "DELETE FROM INT_LOCK");
            String table = "bench_scale_" + Long.toHexString(System.nanoTime() & 0xffffffL);
            JdbcLockClient latchkey = JdbcLockClient.create(ds, ClientOptions.defaults(),
                    JdbcOptions.builder().tableName(table).build());
            SpringJdbcContender spring = new SpringJdbcContender(ds);
            List<Side> sides = List.of(new Side("Latchkey JdbcLockClient", table, latchkey::lock, latchkey),
                    new Side("Spring JdbcLockRegistry", "int_lock", spring::lock, spring));
            List<long[]> results = new ArrayList<>();
            for (Side side : sides) {
                long start = System.nanoTime();
                run(side, names, threads);
                double seconds = (System.nanoTime() - start) / 1e9;
                long rows = count(ds, side.table());
                long size = size(ds, side.table());
                exec(ds, "VACUUM " + side.table());
                long vacuumed = size(ds, side.table());
                // a second batch of as many new names: VACUUM made the dead space reusable, so the files stay put
                run(side, names, threads);
                long rows2 = count(ds, side.table());
                exec(ds, "VACUUM " + side.table());
                long second = size(ds, side.table());
                results.add(new long[] {rows, size, vacuumed, rows2, second});
                System.out.printf(Locale.ROOT, "%s: %,d names in %.1f s (%,.0f/s): %,d rows left, %,d bytes, "
                                + "%,d bytes after VACUUM; after %,d more names and VACUUM: %,d rows, %,d bytes%n",
                        side.name(), names, seconds, names / seconds, rows, size, vacuumed, names, rows2, second);
                side.closer().close();
            }
            System.out.println();
            System.out.printf(Locale.ROOT, "PostgreSQL, %,d distinct names locked and released once, %d threads%n",
                    names, threads);
            System.out.println("| left on the server | Latchkey | Spring JdbcLockRegistry | previous Latchkey (row per name) |");
            System.out.println("|---|---:|---:|---:|");
            System.out.printf(Locale.ROOT, "| rows | %,d | %,d | %,d |%n", results.get(0)[0], results.get(1)[0], names);
            System.out.printf(Locale.ROOT, "| pg_total_relation_size right after | %,d B | %,d B | |%n",
                    results.get(0)[1], results.get(1)[1]);
            System.out.printf(Locale.ROOT, "| pg_total_relation_size after VACUUM | %,d B | %,d B | |%n",
                    results.get(0)[2], results.get(1)[2]);
            System.out.printf(Locale.ROOT, "| rows after a second batch of %,d names | %,d | %,d | %,d |%n", names,
                    results.get(0)[3], results.get(1)[3], 2L * names);
            System.out.printf(Locale.ROOT, "| pg_total_relation_size after the second batch and VACUUM | %,d B | %,d B | |%n",
                    results.get(0)[4], results.get(1)[4]);
            System.out.printf(Locale.ROOT, "ratio of sizes after VACUUM (Latchkey / Spring): %.2f%n",
                    (double) results.get(0)[2] / Math.max(1, results.get(1)[2]));
            exec(ds, "DROP TABLE " + table);
            exec(ds, "DROP SEQUENCE " + table + "_token");
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private static void run(Side side, int names, int threads) throws InterruptedException {
        AtomicInteger next = new AtomicInteger();
        String prefix = "order:" + Long.toHexString(System.nanoTime()) + ":";
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                for (int i = next.getAndIncrement(); i < names; i = next.getAndIncrement()) {
                    Lock lock = side.locks().apply(prefix + i);
                    lock.lock();
                    lock.unlock();
                }
            }, "bench-scale-" + t);
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
    }

    private static long count(HikariDataSource ds, String table) throws Exception {
        return query(ds, "SELECT count(*) FROM " + table);
    }

    private static long size(HikariDataSource ds, String table) throws Exception {
        return query(ds, "SELECT pg_total_relation_size('" + table + "')");
    }

    private static long query(HikariDataSource ds, String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void exec(HikariDataSource ds, String sql) throws Exception {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static HikariDataSource pool(String url) {
        HikariConfig c = new HikariConfig();
        c.setJdbcUrl(url);
        c.setMaximumPoolSize(16);
        c.setPoolName("bench-scale");
        return new HikariDataSource(c);
    }

}
