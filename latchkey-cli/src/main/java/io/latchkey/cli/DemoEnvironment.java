package io.latchkey.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the demo runs on: the database holding the stock (an embedded H2 file database in a temp dir unless the
 * user names one) and the lock backends (embedded ones first, then the user's). Everything embedded is stopped and
 * its temp dir deleted by {@link #close()}.
 */
final class DemoEnvironment implements AutoCloseable {

    private final Path tempDir;
    private final FlashSaleDatabase database;
    private final String databaseDescription;
    private final Connection h2KeepAlive;
    private final List<LockBackend> backends = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<AutoCloseable> embedded = new ArrayList<>();

    private DemoEnvironment(Path tempDir, FlashSaleDatabase database, String databaseDescription,
            Connection h2KeepAlive) {
        this.tempDir = tempDir;
        this.database = database;
        this.databaseDescription = databaseDescription;
        this.h2KeepAlive = h2KeepAlive;
    }

    /**
     * @param databaseUrl the user's JDBC URL for the stock, or {@code null} for the embedded H2 database
     * @param embeddedLocks whether to start the embedded lock backends
     * @param userBackends the {@code --backend} URIs, already checked for a supported scheme
     */
    static DemoEnvironment start(String databaseUrl, boolean embeddedLocks, List<String> userBackends,
            Duration timeout, String runId) throws IOException, SQLException {
        Path dir = Files.createTempDirectory("latchkey-demo-");
        DemoEnvironment env;
        try {
            if (databaseUrl == null) {
                String h2 = "jdbc:h2:file:" + dir.resolve("seckill").toAbsolutePath() + ";LOCK_TIMEOUT=30000";
                // Keeps the database open between the strategies' connections; SHUTDOWN in close() ends it.
                Connection keepAlive = DriverManager.getConnection(h2);
                env = new DemoEnvironment(dir, new FlashSaleDatabase(h2), "embedded H2 file database", keepAlive);
            } else {
                Secrets.register(databaseUrl);
                env = new DemoEnvironment(dir, new FlashSaleDatabase(databaseUrl), Connector.describe(databaseUrl),
                        null);
            }
        } catch (SQLException | RuntimeException e) {
            deleteRecursively(dir);
            throw e;
        }
        try {
            if (embeddedLocks) {
                env.startEmbeddedLocks(timeout, runId);
            }
            for (String uri : userBackends) {
                env.backends.add(new LockBackend(uri, env.uniqueLabel(Connector.backendName(uri)),
                        Connector.describe(uri), timeout));
            }
            return env;
        } catch (RuntimeException e) {
            env.close();
            throw e;
        }
    }

    /**
     * The operation timeout of clients of the embedded servers: the user's {@code --timeout} is about servers
     * elsewhere; ours run in this JVM, where the first connect of a cold, busy JVM is slow because of class loading,
     * not the network.
     */
    private static final Duration EMBEDDED_MIN_TIMEOUT = Duration.ofSeconds(20);

    private void startEmbeddedLocks(Duration userTimeout, String runId) {
        Duration timeout = userTimeout.compareTo(EMBEDDED_MIN_TIMEOUT) < 0 ? EMBEDDED_MIN_TIMEOUT : userTimeout;
        EmbeddedLockServers.start(tempDir, timeout, this);
        if (h2KeepAlive != null && Connector.isSupported(database.url())) {
            backends.add(new LockBackend(database.url(), uniqueLabel("h2"),
                    "SQL lease table in the embedded H2 database", timeout));
        } else if (h2KeepAlive != null) {
            notes.add("no SQL lock backend on the class path: the H2 lease-table lock is not shown");
        }
        if (backends.isEmpty() && Connector.isSupported("mem://")) {
            backends.add(new LockBackend("mem://latchkey-demo-" + runId, uniqueLabel("mem"),
                    "in-memory reference backend, one JVM", timeout));
        }
    }

    /** Adds an embedded backend; its server is closed with this environment. */
    void addEmbedded(LockBackend backend, AutoCloseable server) {
        backends.add(backend);
        embedded.add(server);
    }

    void note(String note) {
        notes.add(note);
    }

    String uniqueLabel(String base) {
        String label = base;
        for (int n = 2; labelTaken(label); n++) {
            label = base + n;
        }
        return label;
    }

    private boolean labelTaken(String label) {
        for (LockBackend b : backends) {
            if (b.label().equals(label)) {
                return true;
            }
        }
        return false;
    }

    Path tempDir() {
        return tempDir;
    }

    FlashSaleDatabase database() {
        return database;
    }

    boolean embeddedDatabase() {
        return h2KeepAlive != null;
    }

    String databaseDescription() {
        return databaseDescription;
    }

    List<LockBackend> backends() {
        return backends;
    }

    List<String> notes() {
        return notes;
    }

    @Override
    public void close() {
        for (int i = embedded.size() - 1; i >= 0; i--) {
            try {
                embedded.get(i).close();
            } catch (Exception e) {
                // Best effort: the process is about to exit and the temp dir goes with it.
            }
        }
        if (h2KeepAlive != null) {
            try (Statement s = h2KeepAlive.createStatement()) {
                s.execute("SHUTDOWN");
            } catch (SQLException e) {
                // already closed
            }
            try {
                h2KeepAlive.close();
            } catch (SQLException e) {
                // already closed
            }
        }
        deleteRecursively(tempDir);
    }

    private static void deleteRecursively(Path dir) {
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                    Files.deleteIfExists(d);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // A leftover temp dir is harmless; say nothing rather than fail a finished demo.
        }
    }

    /** For diagnostics with --verbose. */
    void describe(PrintWriter err) {
        err.printf("demo temp dir: %s%n", tempDir);
    }
}
