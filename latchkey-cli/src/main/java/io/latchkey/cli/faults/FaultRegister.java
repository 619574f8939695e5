package io.latchkey.cli.faults;

import io.latchkey.jdbc.FencingGuard;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The fenced register a fault run's workers write: a row of {@link FaultRun#REGISTER_TABLE} guarded by a
 * {@link FencingGuard}, in an H2 database this process serves over TCP or the user's {@code --resource jdbc:…}; or key
 * {@link FaultRun#STORE_KEY} of the lock's own fenced store ({@code --register store}). Prepared empty (0) before the
 * workers start and read once they stopped; {@link #close()} stops what it started.
 */
final class FaultRegister implements AutoCloseable {

    private final String name;
    private final boolean inStore;
    private final String resource;
    private org.h2.tools.Server h2;
    private String url;
    /** The register as the worker on the master's side of a split brain reaches it, or {@code null}. */
    private String masterSideUrl;
    private TcpProxy masterSideProxy;

    /**
     * @param resource the user's {@code --resource} (a JDBC URL or {@link FaultRun#STORE_REGISTER}), or {@code null}
     *        for an H2 database hosted in {@code dir}
     * @param name the run's lock name: the register's row (or the fenced store's lock)
     */
    FaultRegister(String resource, String name, Path dir) throws IOException {
        this.name = name;
        this.resource = resource;
        this.inStore = FaultRun.STORE_REGISTER.equals(resource);
        if (resource != null) {
            url = resource;
        } else {
            startH2(dir);
        }
    }

    /** Whether the register is a key of the lock's fenced store. */
    boolean inStore() {
        return inStore;
    }

    /** The register's JDBC URL (the fenced store's: {@link FaultRun#STORE_REGISTER}). */
    String url() {
        return url;
    }

    /** Where the register is, for the run's first line. */
    String description() {
        return inStore ? "the lock's own fenced store (--register store)"
                : resource != null ? ProxiedUri.backend(url) + " (--resource)"
                : "an H2 database hosted by the verifier";
    }

    /** Creates the fencing table and the register's row (0); nothing for the fenced store, where it is absent (0). */
    void prepare() {
        if (inStore) {
            return;
        }
        try (Connection c = DriverManager.getConnection(url)) {
            FencingGuard.create(new UrlDataSource(url), FaultRun.FENCING_TABLE, true);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE IF NOT EXISTS " + FaultRun.REGISTER_TABLE
                        + " (name VARCHAR(200) NOT NULL PRIMARY KEY, val BIGINT NOT NULL)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + FaultRun.REGISTER_TABLE
                    + " (name, val) VALUES (?, 0)")) {
                ps.setString(1, name);
                ps.executeUpdate();
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not prepare the register at "
                    + ProxiedUri.backend(url) + ": " + e.getMessage(), e);
        }
    }

    /**
     * The register's URL for the worker on the master's side of a split brain: the verifier's H2 through a proxy on
     * the host's address of the segment (that worker's loopback is its namespace's own); a register elsewhere as is.
     */
    String masterSideUrl(ServerControl server) {
        if (masterSideUrl == null) {
            String prefix = "jdbc:h2:tcp://127.0.0.1:";
            if (url.startsWith(prefix)) {
                String rest = url.substring(prefix.length());
                int slash = rest.indexOf('/');
                masterSideProxy = new TcpProxy(server.hostAddress(), "127.0.0.1",
                        Integer.parseInt(rest.substring(0, slash)));
                masterSideUrl = "jdbc:h2:tcp://" + server.hostAddress() + ":" + masterSideProxy.port()
                        + rest.substring(slash);
            } else {
                masterSideUrl = url;
            }
        }
        return masterSideUrl;
    }

    /** The register's final value; for the fenced store 0 if no write was ever applied, for a table -1 if no row. */
    long read(ServerControl server) {
        return inStore ? readStore(server) : readTable();
    }

    private long readStore(ServerControl server) {
        try (io.latchkey.LockClient client = io.latchkey.LockClient.connect(server.uri())) {
            return client.fencedStore(name).getString(FaultRun.STORE_KEY).map(Long::parseLong).orElse(0L);
        } catch (RuntimeException e) {
            throw new IllegalStateException("could not read the register in the lock's store: " + e.getMessage(), e);
        }
    }

    private long readTable() {
        try (Connection c = DriverManager.getConnection(url);
             PreparedStatement ps = c.prepareStatement("SELECT val FROM " + FaultRun.REGISTER_TABLE
                     + " WHERE name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not read the register: " + e.getMessage(), e);
        }
    }

    private void startH2(Path dir) throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        try {
            h2 = org.h2.tools.Server.createTcpServer("-tcpPort", Integer.toString(port),
                    "-ifNotExists", "-baseDir", dir.toString()).start();
            url = "jdbc:h2:tcp://127.0.0.1:" + port + "/register;LOCK_TIMEOUT=5000";
        } catch (SQLException e) {
            throw new IllegalStateException("could not start the register's H2 server: " + e.getMessage(), e);
        }
    }

    /** Closes the master side's proxy and stops the hosted H2 server, if any. */
    @Override
    public void close() {
        if (masterSideProxy != null) {
            masterSideProxy.close();
        }
        if (h2 != null) {
            h2.stop();
        }
    }
}
