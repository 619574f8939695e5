package io.latchkey.cli.faults;

import io.latchkey.testing.FakeClock;
import io.latchkey.testing.NetworkNamespace;
import io.latchkey.testing.sql.MariaDbServer;
import io.latchkey.testing.sql.PgBouncerServer;
import io.latchkey.testing.sql.PostgresServer;
import io.latchkey.testing.sql.SqlServerProcess;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;

/**
 * The SQL servers of {@code verify --faults --embedded}: PostgreSQL (directly or behind PgBouncer in transaction
 * pooling mode) and MariaDB, killed and started again with their data, their wall clock under libfaketime when it is
 * installed (the clock-jump fault).
 */
final class SqlControls {

    private SqlControls() {
    }

    /**
     * Starts a SQL server of {@code kind} ({@code postgresql}, {@code postgresql-pgbouncer} or {@code mariadb}).
     *
     * @param ns the network namespace to run the database in, or {@code null} for loopback
     */
    static ServerControl start(String kind, NetworkNamespace ns) {
        switch (kind) {
            case "postgresql": {
                PostgresServer pg = new PostgresServer();
                if (ns != null) {
                    pg.inNamespace(ns);
                }
                // now() times the leases: a server under libfaketime lets the run jump its clock
                FakeClock clock = startOnFakeClock(pg);
                durableCommits(pg.jdbcUrl(), PostgresServer.USER);
                return sql("postgresql", pg.jdbcUrl(), pg.host() + ":" + pg.port(), () -> pg.kill(),
                        () -> pg.start(), () -> pg.close(), clock);
            }
            case "postgresql-pgbouncer": {
                // PostgreSQL behind PgBouncer in transaction pooling mode: the workers' URI names the pooler; a server
                // restart kills PostgreSQL, which PgBouncer reconnects to; a partition cuts PostgreSQL (in its
                // namespace) off from PgBouncer (on the host).
                PostgresServer pg = new PostgresServer();
                if (ns != null) {
                    pg.inNamespace(ns);
                }
                FakeClock clock = startOnFakeClock(pg);
                durableCommits(pg.jdbcUrl(), PostgresServer.USER);
                PgBouncerServer bouncer = new PgBouncerServer(pg, 20);
                try {
                    bouncer.start();
                } catch (RuntimeException e) {
                    pg.close();
                    throw e;
                }
                return sql("postgresql-pgbouncer", bouncer.jdbcUrl() + "&latchkey.pooling=transaction",
                        bouncer.host() + ":" + bouncer.port() + " (PgBouncer, pool_mode = transaction) in front of "
                                + "postgresql at " + pg.host() + ":" + pg.port(), () -> pg.kill(), () -> pg.start(),
                        () -> {
                            bouncer.close();
                            pg.close();
                        }, clock);
            }
            case "mariadb": {
                MariaDbServer m = new MariaDbServer();
                if (ns != null) {
                    m.inNamespace(ns);
                }
                FakeClock clock = startOnFakeClock(m);
                return sql("mariadb", m.jdbcUrl(), m.host() + ":" + m.port(), () -> m.kill(), () -> m.start(),
                        () -> m.close(), clock);
            }
            default:
                throw new IllegalArgumentException("not a SQL kind: " + kind);
        }
    }

    /**
     * The test fixture runs PostgreSQL with {@code synchronous_commit=off} for speed, which loses the last commits
     * when the server is killed (and with them granted tokens, which would then be handed out again). A user's server
     * commits durably by default; so does this one from now on (a role setting overrides the command line's).
     */
    private static void durableCommits(String jdbcUrl, String user) {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + user + " SET synchronous_commit = on");
        } catch (SQLException e) {
            throw new IllegalStateException("could not make the embedded PostgreSQL commit durably: " + e, e);
        }
    }

    /** Starts {@code server}, under a fake clock if libfaketime is installed; returns that clock or {@code null}. */
    private static FakeClock startOnFakeClock(SqlServerProcess server) {
        boolean movable = FakeClock.library().isPresent();
        if (movable) {
            server.withFakeClock();
        }
        server.start();
        return movable ? server.clock() : null;
    }

    /** @param clock the server's clock if the verifier can move it, else {@code null} */
    private static ServerControl sql(String name, String jdbcUrl, String address, Runnable kill, Runnable start,
                                     Runnable close, FakeClock clock) {
        return new EmbeddedServerControl(name, jdbcUrl, name + " at " + address + " (data kept across restarts"
                + (clock == null ? "" : "; wall clock under libfaketime") + ")", clock == null
                ? Set.of(FaultKind.SERVER_RESTART) : Set.of(FaultKind.SERVER_RESTART, FaultKind.CLOCK_JUMP), true) {
            @Override
            public void crash() {
                kill.run();
            }

            @Override
            public void jumpClock(Duration by) {
                if (clock == null) {
                    super.jumpClock(by);
                }
                clock.jump(by);
            }

            @Override
            public String whyNoClockJump() {
                return "libfaketime is not installed: " + FakeClock.INSTALL_HINT;
            }

            @Override
            public void restart() {
                start.run();
            }

            @Override
            public void close() {
                close.run();
            }
        };
    }
}
