package io.latchkey.testing.sql;

import io.latchkey.testing.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * A real PgBouncer (Debian's {@code pgbouncer}) in transaction pooling mode, on a free port of 127.0.0.1, in front of
 * a {@link PostgresServer}: every database of that server, as the fixture's user {@value PostgresServer#USER}
 * (trust authentication). In this mode a server connection belongs to a client only for one transaction, so no
 * session state survives between transactions: {@code LISTEN}, session advisory locks, session settings and named
 * server-side prepared statements do not work through it, which is what the fixture is for.
 *
 * <p>PgBouncer refuses to run as root: when the tests do, it runs as the {@code postgres} system user, like the
 * PostgreSQL fixture. Not thread-safe; {@link #shared()} is the one PgBouncer of a test JVM (in front of
 * {@link PostgresServer#shared()}), stopped when the JVM exits.
 */
public final class PgBouncerServer extends SqlServerProcess {

    public static final String INSTALL_HINT = "sudo apt-get install pgbouncer";

    private static PgBouncerServer shared;

    private final PostgresServer postgres;
    private final int poolSize;

    /**
     * @param postgres the server behind PgBouncer; started by {@link #start()} if it is not running
     * @param poolSize server connections per database and user ({@code default_pool_size})
     */
    public PgBouncerServer(PostgresServer postgres, int poolSize) {
        this.postgres = Objects.requireNonNull(postgres, "postgres");
        if (poolSize < 1 || poolSize > 1000) {
            throw new IllegalArgumentException("poolSize must be between 1 and 1000 but was " + poolSize);
        }
        this.poolSize = poolSize;
    }

    /** The JVM-wide PgBouncer in front of the shared PostgreSQL server, started on first use, stopped at JVM exit. */
    public static synchronized PgBouncerServer shared() {
        if (shared == null) {
            PgBouncerServer s = new PgBouncerServer(PostgresServer.shared(), 20);
            s.start();
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "latchkey-test-pgbouncer-shutdown"));
            shared = s;
        }
        return shared;
    }

    /** Starts PostgreSQL (if needed) and PgBouncer in front of it. */
    @Override
    public void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        Path pgbouncer = Binaries.find("pgbouncer", INSTALL_HINT, List.of(Path.of("/usr/sbin")));
        postgres.start();
        boolean root = Binaries.runningAsRoot();
        if (dir == null) {
            dir = TestFiles.createTempDir("latchkey-pgbouncer-");
            if (root) {
                PostgresServer.handTo(dir);
            }
        }
        startOnFreePort("pgbouncer", port -> {
            Path ini = writeConfig(port);
            return PostgresServer.asServiceUser(root, List.of(pgbouncer.toString(), ini.toString()));
        }, "process up", "Address already in use");
    }

    private Path writeConfig(int port) {
        String ini = String.join("\n",
                "[databases]",
                "* = host=" + postgres.host() + " port=" + postgres.port(),
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = trust",
                "auth_file = " + dir.resolve("users.txt"),
                "pool_mode = transaction",
                "default_pool_size = " + poolSize,
                "max_client_conn = 1000",
                // PgJDBC sends extra_float_digits at start-up, which PgBouncer would refuse.
                "ignore_startup_parameters = extra_float_digits,options",
                "");
        try {
            Files.writeString(dir.resolve("users.txt"), "\"" + PostgresServer.USER + "\" \"\"\n",
                    StandardCharsets.UTF_8);
            Path file = dir.resolve("pgbouncer.ini");
            Files.writeString(file, ini, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("could not write the PgBouncer configuration in " + dir, e);
        }
    }

    /**
     * {@code jdbc:postgresql://127.0.0.1:<port>/postgres?user=latchkey&prepareThreshold=0}: through PgBouncer, with
     * PgJDBC's named server-side prepared statements off (PgBouncer 1.18 cannot route them).
     */
    @Override
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + PostgresServer.DATABASE + "?user=" + PostgresServer.USER
                + "&prepareThreshold=0";
    }

    /** The PostgreSQL server behind PgBouncer. */
    public PostgresServer postgres() {
        return postgres;
    }
}
