package io.latchkey.testing.sql;

import io.latchkey.testing.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A real MariaDB server (Debian's {@code mariadb-server}) in a temporary directory on a free port: a data
 * directory made by {@code mariadb-install-db}, {@code root} without a password on 127.0.0.1, and the database
 * {@value #DATABASE}. Durability is relaxed (no binary log, lazy redo flush): the data is thrown away.
 *
 * <p>When the tests run as root, {@code mariadbd} is told so explicitly ({@code --user=root}), which it requires.
 * Not thread-safe; {@link #shared()} is the one server of a test JVM, stopped when the JVM exits.
 */
public final class MariaDbServer extends SqlServerProcess {

    public static final String INSTALL_HINT = "sudo apt-get install mariadb-server";
    public static final String USER = "root";
    public static final String DATABASE = "latchkey";

    private static MariaDbServer shared;

    /** The JVM-wide server, started on first use and stopped at JVM exit. */
    public static synchronized MariaDbServer shared() {
        if (shared == null) {
            MariaDbServer s = new MariaDbServer();
            s.start();
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "latchkey-test-mariadb-shutdown"));
            shared = s;
        }
        return shared;
    }

    /** Creates a fresh data directory (first call) and starts the server. */
    @Override
    public void start() {
        if (process != null && process.isAlive()) {
            return;
        }
        List<Path> debianDirs = List.of(Path.of("/usr/bin"), Path.of("/usr/sbin"));
        Path installDb = Binaries.find("mariadb-install-db", INSTALL_HINT, debianDirs);
        Path mariadbd = Binaries.find("mariadbd", INSTALL_HINT, debianDirs);
        boolean root = Binaries.runningAsRoot();
        if (dir == null) {
            dir = TestFiles.createTempDir("latchkey-mariadb-");
            List<String> install = new ArrayList<>(List.of(installDb.toString(), "--no-defaults",
                    "--datadir=" + dir.resolve("data"), "--auth-root-authentication-method=normal", "--skip-test-db"));
            if (root) {
                install.add("--user=root");
            }
            Binaries.run(install, dir, 120);
            try {
                String init = "CREATE DATABASE IF NOT EXISTS " + DATABASE + ";\n";
                if (!"127.0.0.1".equals(host())) {
                    // In a network namespace clients come from the host's end of its link.
                    init += "CREATE USER IF NOT EXISTS '" + USER + "'@'10.213.%';\n"
                            + "GRANT ALL PRIVILEGES ON *.* TO '" + USER + "'@'10.213.%' WITH GRANT OPTION;\n";
                }
                Files.writeString(dir.resolve("init.sql"), init);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        startOnFreePort("mariadbd", port -> {
            List<String> cmd = new ArrayList<>(List.of(mariadbd.toString(), "--no-defaults",
                    "--datadir=" + dir.resolve("data"), "--port=" + port, "--bind-address=" + host(),
                    "--socket=" + dir.resolve("mysqld.sock"), "--pid-file=" + dir.resolve("mysqld.pid"),
                    "--tmpdir=" + dir, "--init-file=" + dir.resolve("init.sql"), "--skip-name-resolve",
                    "--skip-log-bin", "--innodb-buffer-pool-size=64M", "--innodb-log-file-size=16M",
                    "--innodb-flush-log-at-trx-commit=2", "--max-connections=300"));
            if (root) {
                cmd.add("--user=root");
            }
            return onClock(cmd);
        }, "ready for connections", "Address already in use");
    }

    /**
     * {@code jdbc:mariadb://127.0.0.1:<port>/latchkey?user=root&sslMode=disable}: the test server speaks plain TCP,
     * and MariaDB Connector/J 4 uses TLS unless told otherwise (3.x accepts the parameter too).
     */
    @Override
    public String jdbcUrl() {
        return "jdbc:mariadb://" + host() + ":" + port + "/" + DATABASE + "?user=" + USER + "&sslMode=disable";
    }
}
