package io.latchkey.testing.sql;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives a test class the JVM's shared PostgreSQL or MariaDB server (started on first use, stopped when the test
 * JVM exits, so that a module's test classes pay the start-up once):
 *
 * <pre>{@code
 * @RegisterExtension
 * static SqlServerExtension db = SqlServerExtension.postgres();
 *
 * @Test
 * void locks() {
 *     try (LockClient client = LockClient.connect(db.jdbcUrl())) { ... }
 * }
 * }</pre>
 *
 * <p>A missing server binary fails the test with the install command (or {@code scripts/install-test-servers.sh});
 * it is never skipped. Tests share the server: use distinct table or lock names.
 */
public final class SqlServerExtension implements BeforeAllCallback {

    private final boolean postgres;

    private SqlServerExtension(boolean postgres) {
        this.postgres = postgres;
    }

    /** The shared PostgreSQL 15 server. */
    public static SqlServerExtension postgres() {
        return new SqlServerExtension(true);
    }

    /** The shared MariaDB server. */
    public static SqlServerExtension mariaDb() {
        return new SqlServerExtension(false);
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        jdbcUrl();
    }

    /** The server's JDBC URL (starting the server if needed). */
    public String jdbcUrl() {
        return postgres ? PostgresServer.shared().jdbcUrl() : MariaDbServer.shared().jdbcUrl();
    }

    /** The shared PostgreSQL server; fails for a MariaDB extension. */
    public PostgresServer postgresServer() {
        if (!postgres) {
            throw new IllegalStateException("this is a MariaDB extension");
        }
        return PostgresServer.shared();
    }

    /** The shared MariaDB server; fails for a PostgreSQL extension. */
    public MariaDbServer mariaDbServer() {
        if (postgres) {
            throw new IllegalStateException("this is a PostgreSQL extension");
        }
        return MariaDbServer.shared();
    }
}
