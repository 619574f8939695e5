package io.latchkey.cli.faults;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.jdbc.FencingGuard;
import io.latchkey.jdbc.StaleTokenException;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A worker process of {@code latchkey verify --faults}: contends on one lock name in a loop and, while it holds the
 * lock, increments a register through a {@link FencingGuard} (fenced read, then fenced write of the value read plus
 * one), logging every step as a {@link HistoryEvent} line on standard output. The verifier starts several of these
 * JVMs, pauses, kills and cuts them off, and checks the merged history.
 *
 * <p>The lease is watchdog-renewed with a watchdog timeout of {@code --lease}: a worker paused or partitioned past it
 * loses the lock, and must be told ({@code onLost} or {@code LockLostException}). The loop ends when standard input
 * closes (the verifier's orderly stop): the current hold is released and the client closed.
 *
 * <p>Threads: the loop runs on {@code main}; one daemon thread {@code latchkey-fault-worker-stdin} waits for the end
 * of standard input. Both end with the process.
 */
public final class FaultWorkerMain {

    /** Options that may carry passwords come in the environment: {@code LATCHKEY_FAULTS_URI}, {@code …_REGISTER}. */
    static final String ENV_PREFIX = "LATCHKEY_FAULTS_";

    private final String id;
    private final PrintStream out;
    private final AtomicBoolean stopping = new AtomicBoolean();

    private FaultWorkerMain(String id, PrintStream out) {
        this.id = id;
        this.out = out;
    }

    /**
     * Arguments: {@code --id w1 --name NAME --table TABLE --lease MILLIS --hold MILLIS --wait MILLIS --timeout MILLIS};
     * the lock URI and the register's JDBC URL in the environment ({@link #ENV_PREFIX}{@code URI}, {@code REGISTER}),
     * or as {@code --uri} and {@code --register}.
     */
    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        Map<String, String> a = parse(args);
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        new FaultWorkerMain(a.get("id"), out).run(a);
        System.exit(0);
    }

    private static Map<String, String> parse(String[] args) {
        Map<String, String> a = new HashMap<>();
        for (String secret : new String[] {"uri", "register"}) {
            String v = System.getenv(ENV_PREFIX + secret.toUpperCase(java.util.Locale.ROOT));
            if (v != null) {
                a.put(secret, v);
            }
        }
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException(String.format("expected an option but got '%s'", args[i]));
            }
            a.put(args[i].substring(2), args[i + 1]);
        }
        for (String required : new String[] {"id", "uri", "name", "register", "table", "lease", "hold", "wait",
                "timeout"}) {
            if (!a.containsKey(required)) {
                throw new IllegalArgumentException(String.format("missing --%s", required));
            }
        }
        return a;
    }

    private void run(Map<String, String> a) throws InterruptedException, SQLException {
        Duration lease = Duration.ofMillis(Long.parseLong(a.get("lease")));
        Duration wait = Duration.ofMillis(Long.parseLong(a.get("wait")));
        Duration timeout = Duration.ofMillis(Long.parseLong(a.get("timeout")));
        long hold = Long.parseLong(a.get("hold"));
        String name = a.get("name");
        String table = a.get("table");
        watchStandardInput();
        if (a.containsKey("sample")) {
            sampleEvery(Long.parseLong(a.get("sample")));
        }
        if (FaultRun.STORE_REGISTER.equals(a.get("register"))) {
            runOnStore(a, lease, wait, timeout, hold, name);
            return;
        }
        HikariConfig pool = new HikariConfig();
        pool.setJdbcUrl(a.get("register"));
        pool.setMaximumPoolSize(2);
        pool.setMinimumIdle(0);
        pool.setConnectionTimeout(Math.max(250, timeout.toMillis()));
        pool.setPoolName("latchkey-fault-register-" + id);
        pool.setInitializationFailTimeout(-1);
        try (HikariDataSource register = new HikariDataSource(pool);
             LockClient client = connect(a.get("uri"), lease, timeout)) {
            FencingGuard guard = guard(register);
            contend(client, name, wait, hold, (held, token) -> work(guard, table, name, token, hold));
        }
    }

    /** The same loop with the register in the lock's own fenced store ({@code --register store}). */
    private void runOnStore(Map<String, String> a, Duration lease, Duration wait, Duration timeout, long hold,
                            String name) throws InterruptedException {
        try (LockClient client = connect(a.get("uri"), lease, timeout)) {
            io.latchkey.FencedStore store = client.fencedStore(name);
            contend(client, name, wait, hold, (held, token) -> workOnStore(store, held, token, hold));
        }
    }

    /** What a worker does while it holds the lock, before it releases it. */
    @FunctionalInterface
    private interface WorkWhileHeld {
        void run(LockLease held, long token) throws InterruptedException;
    }

    /**
     * The worker's loop until standard input closes: try to acquire {@code name} for {@code wait}, and when granted
     * log it, run {@code work}, release, and pause up to half a hold before the next try.
     */
    private void contend(LockClient client, String name, Duration wait, long hold, WorkWhileHeld work)
            throws InterruptedException {
        DistributedLock lock = client.lock(name);
        log(HistoryEvent.Type.START, -1, -1, ProcessHandle.current().pid() + "");
        while (!stopping.get()) {
            Optional<LockLease> granted;
            try {
                granted = lock.tryAcquire(wait);
            } catch (RuntimeException e) {
                log(HistoryEvent.Type.ERROR, -1, -1, "acquire: " + describe(e));
                Thread.sleep(100);
                continue;
            }
            if (granted.isEmpty()) {
                log(HistoryEvent.Type.TIMEOUT, -1, -1, "");
                continue;
            }
            LockLease held = granted.get();
            long token = held.fencingToken();
            log(HistoryEvent.Type.ACQUIRED, token, -1, "");
            held.onLost(() -> log(HistoryEvent.Type.LOST, token, -1, ""));
            work.run(held, token);
            release(held, token);
            Thread.sleep(ThreadLocalRandom.current().nextLong(1, Math.max(2, hold / 2)));
        }
    }

    /**
     * Read (no lease needed), the "work" of {@code hold} ms, then a fenced put of the value read plus one: the lock's
     * server refuses it with {@link io.latchkey.StaleLeaseException} unless the lease is still the current hold.
     */
    private void workOnStore(io.latchkey.FencedStore store, LockLease held, long token, long hold)
            throws InterruptedException {
        long value;
        try {
            value = store.getString(FaultRun.STORE_KEY).map(Long::parseLong).orElse(0L);
        } catch (RuntimeException e) {
            log(HistoryEvent.Type.ERROR, token, -1, "read: " + describe(e));
            return;
        }
        log(HistoryEvent.Type.READ, token, value, "");
        Thread.sleep(hold);
        long next = value + 1;
        try {
            store.putString(held, FaultRun.STORE_KEY, Long.toString(next));
            log(HistoryEvent.Type.WRITE_OK, token, next, "");
        } catch (io.latchkey.StaleLeaseException e) {
            log(HistoryEvent.Type.WRITE_REFUSED, token, next, "");
        } catch (RuntimeException e) {
            log(HistoryEvent.Type.ERROR, token, next, "write: " + describe(e));
        }
    }

    private FencingGuard guard(HikariDataSource register) throws InterruptedException, SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return FencingGuard.create(register, FaultRun.FENCING_TABLE, false);
            } catch (SQLException | RuntimeException e) {
                if (attempt == 50) {
                    throw e;
                }
                log(HistoryEvent.Type.ERROR, -1, -1, "register: " + describe(e));
                Thread.sleep(200);
            }
        }
    }

    private LockClient connect(String uri, Duration lease, Duration timeout) throws InterruptedException {
        while (true) {
            try {
                return LockClient.connect(uri, ClientOptions.builder().watchdogTimeout(lease)
                        .operationTimeout(timeout).build());
            } catch (RuntimeException e) {
                log(HistoryEvent.Type.ERROR, -1, -1, "connect: " + describe(e));
                Thread.sleep(200);
            }
        }
    }

    /** Fenced read, the "work" of {@code hold} ms, fenced write of the value read plus one. */
    private void work(FencingGuard guard, String table, String name, long token, long hold)
            throws InterruptedException {
        long value;
        try {
            value = guard.write(name, token, c -> {
                try (PreparedStatement ps = c.prepareStatement("SELECT val FROM " + table + " WHERE name = ?")) {
                    ps.setString(1, name);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw new SQLException("the register row " + name + " is missing");
                        }
                        return rs.getLong(1);
                    }
                }
            });
        } catch (StaleTokenException e) {
            log(HistoryEvent.Type.READ_REFUSED, token, -1, "");
            return;
        } catch (SQLException | RuntimeException e) {
            log(HistoryEvent.Type.ERROR, token, -1, "read: " + describe(e));
            return;
        }
        log(HistoryEvent.Type.READ, token, value, "");
        Thread.sleep(hold);
        long next = value + 1;
        try {
            guard.write(name, token, c -> {
                try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET val = ? WHERE name = ?")) {
                    ps.setLong(1, next);
                    ps.setString(2, name);
                    return ps.executeUpdate();
                }
            });
            log(HistoryEvent.Type.WRITE_OK, token, next, "");
        } catch (StaleTokenException e) {
            log(HistoryEvent.Type.WRITE_REFUSED, token, next, "");
        } catch (SQLException | RuntimeException e) {
            log(HistoryEvent.Type.ERROR, token, next, "write: " + describe(e));
        }
    }

    /** Stamped with the call's start: the hold ends no later than that, as far as this worker knows. */
    private void release(LockLease held, long token) {
        long start = System.nanoTime();
        try {
            held.release();
            log(start, HistoryEvent.Type.RELEASED, token, -1, "");
        } catch (LockLostException e) {
            log(start, HistoryEvent.Type.RELEASE_LOST, token, -1, "");
        } catch (RuntimeException e) {
            log(start, HistoryEvent.Type.RELEASE_ERROR, token, -1, describe(e));
        }
    }

    /**
     * Soak runs: every {@code millis}, a {@link HistoryEvent.Type#SAMPLE} with the heap in use right after a GC and the
     * live threads of this JVM, so that the verifier can show that a long-running client does not grow. One daemon
     * thread, which ends with the process.
     */
    private void sampleEvery(long millis) {
        Thread t = new Thread(() -> {
            java.lang.management.MemoryMXBean memory = java.lang.management.ManagementFactory.getMemoryMXBean();
            java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
            while (!stopping.get()) {
                memory.gc();
                log(HistoryEvent.Type.SAMPLE, -1, -1, "heap=" + memory.getHeapMemoryUsage().getUsed() + " threads="
                        + threads.getThreadCount());
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }, "latchkey-fault-worker-sample");
        t.setDaemon(true);
        t.start();
    }

    private void watchStandardInput() {
        Thread t = new Thread(() -> {
            InputStream in = System.in;
            try {
                while (in.read() >= 0) {
                    // the verifier writes nothing: end of input is the stop signal
                }
            } catch (IOException e) {
                // treated as the end of input
            }
            stopping.set(true);
        }, "latchkey-fault-worker-stdin");
        t.setDaemon(true);
        t.start();
    }

    private void log(HistoryEvent.Type type, long token, long value, String detail) {
        log(System.nanoTime(), type, token, value, detail);
    }

    private void log(long nanos, HistoryEvent.Type type, long token, long value, String detail) {
        out.println(new HistoryEvent(nanos, id, type, token, value, detail).format());
    }

    private static String describe(Throwable e) {
        String m = e.getMessage();
        String first = m == null ? "" : m.lines().findFirst().orElse("");
        return e.getClass().getSimpleName() + (first.isEmpty() ? "" : ": " + first);
    }
}
