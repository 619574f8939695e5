package io.latchkey.testing.sql;

import io.latchkey.testing.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.ArrayList;
import java.util.List;

/**
 * A real PostgreSQL server (Debian's {@code postgresql-15}) in a temporary directory on a free port, with a
 * superuser {@value #USER} (trust authentication on 127.0.0.1) and the database {@value #DATABASE}.
 *
 * <p>PostgreSQL refuses to run as root. When the tests do, the fixture hands the data directory to the
 * {@code postgres} system user (created by the Debian package; {@code nobody} otherwise) and runs
 * {@code initdb} and {@code postgres} under that user with {@code setpriv}. Durability is off
 * ({@code fsync=off}): the data is thrown away at the end.
 *
 * <p>Not thread-safe; {@link #shared()} is the one server of a test JVM, stopped when the JVM exits.
 */
public final class PostgresServer extends SqlServerProcess {

    public static final String INSTALL_HINT = "sudo apt-get install postgresql-15";
    public static final String USER = "latchkey";
    public static final String DATABASE = "postgres";

    private static PostgresServer shared;

    /** The primary this server is a standby of ({@link #standbyOf}), or {@code null}. */
    private final PostgresServer primary;

    /** A server of its own (a fresh cluster on {@link #start()}). */
    public PostgresServer() {
        this(null);
    }

    private PostgresServer(PostgresServer primary) {
        this.primary = primary;
    }

    /**
     * A hot standby of {@code primary} (running): on {@link #start()} a base backup of it with streaming replication
     * set up ({@code pg_basebackup -R}), so the server stays in recovery and answers reads only.
     */
    public static PostgresServer standbyOf(PostgresServer primary) {
        return new PostgresServer(primary);
    }

    /** The JVM-wide server, started on first use and stopped at JVM exit. */
    public static synchronized PostgresServer shared() {
        if (shared == null) {
            PostgresServer s = new PostgresServer();
            s.start();
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "latchkey-test-postgres-shutdown"));
            shared = s;
        }
        return shared;
    }

    /** Initialises a fresh cluster (first call) and starts the server. */
    @Override
    public void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        List<Path> debianDirs = List.of(Path.of("/usr/lib/postgresql/15/bin"), Path.of("/usr/lib/postgresql/16/bin"),
                Path.of("/usr/lib/postgresql/17/bin"));
        Path initdb = Binaries.find("initdb", INSTALL_HINT, debianDirs);
        Path postgres = Binaries.find("postgres", INSTALL_HINT, debianDirs);
        boolean root = Binaries.runningAsRoot();
        if (dir == null) {
            dir = TestFiles.createTempDir("latchkey-pg-");
            if (root) {
                handTo(dir, serviceUser());
            }
            List<String> init = primary != null
                    ? asServiceUser(root, List.of(Binaries.find("pg_basebackup", INSTALL_HINT, debianDirs).toString(),
                            "-h", primary.host(), "-p", Integer.toString(primary.port()), "-U", USER, "-D",
                            dir.resolve("data").toString(), "-R", "--no-sync"))
                    : asServiceUser(root, List.of(initdb.toString(), "-D", dir.resolve("data").toString(),
                            "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync", "--locale=C"));
            Binaries.run(init, dir, 120);
            if (!"127.0.0.1".equals(host())) {
                // In a network namespace clients come from the host's end of its link.
                try {
                    java.nio.file.Files.writeString(dir.resolve("data").resolve("pg_hba.conf"),
                            "host all all 10.213.0.0/16 trust\n", java.nio.file.StandardOpenOption.APPEND);
                } catch (IOException e) {
                    throw new UncheckedIOException("could not write pg_hba.conf in " + dir, e);
                }
            }
        }
        startOnFreePort("postgres", port -> asServiceUser(root, onClock(List.of(postgres.toString(), "-D",
                dir.resolve("data").toString(), "-p", Integer.toString(port), "-c", "listen_addresses=" + host(),
                "-c", "unix_socket_directories=" + dir, "-c", "fsync=off", "-c", "synchronous_commit=off",
                "-c", "full_page_writes=off", "-c", "max_connections=200", "-c", "shared_buffers=32MB"))),
                primary != null ? "ready to accept read-only connections" : "ready to accept connections",
                "could not bind");
    }

    /** Stops the server quickly (SIGINT: fast shutdown, open sessions are cut). Keeps the data for {@link #start()}. */
    @Override
    public void stop() {
        if (process != null && process.isAlive()) {
            try {
                Binaries.run(List.of("kill", "-INT", Long.toString(process.pid())), dir, 10);
            } catch (RuntimeException e) {
                // It may have exited on its own: stop() below handles both.
            }
            process.stop();
        }
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/postgres?user=latchkey}. */
    @Override
    public String jdbcUrl() {
        return "jdbc:postgresql://" + host() + ":" + port + "/" + DATABASE + "?user=" + USER;
    }

    /** {@code command}, run as the {@code postgres} system user (with {@code setpriv}) when the tests run as root. */
    static List<String> asServiceUser(boolean root, List<String> command) {
        if (!root) {
            return command;
        }
        String user = serviceUser();
        List<String> c = new ArrayList<>(List.of("setpriv", "--reuid=" + user, "--regid=" + group(user),
                "--clear-groups", "--"));
        c.addAll(command);
        return c;
    }

    private static String serviceUser() {
        UserPrincipalLookupService lookup = Path.of("/").getFileSystem().getUserPrincipalLookupService();
        try {
            lookup.lookupPrincipalByName("postgres");
            return "postgres";
        } catch (UserPrincipalNotFoundException e) {
            return "nobody";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String group(String user) {
        return "postgres".equals(user) ? "postgres" : "nogroup";
    }

    /** Hands {@code dir} to the system user the servers run as when the tests run as root. */
    static void handTo(Path dir) {
        handTo(dir, serviceUser());
    }

    private static void handTo(Path dir, String user) {
        try {
            UserPrincipalLookupService lookup = dir.getFileSystem().getUserPrincipalLookupService();
            UserPrincipal owner = lookup.lookupPrincipalByName(user);
            GroupPrincipal group = lookup.lookupPrincipalByGroupName(group(user));
            PosixFileAttributeView view = Files.getFileAttributeView(dir, PosixFileAttributeView.class);
            view.setOwner(owner);
            view.setGroup(group);
        } catch (IOException e) {
            throw new UncheckedIOException("could not hand " + dir + " to " + user, e);
        }
    }
}
