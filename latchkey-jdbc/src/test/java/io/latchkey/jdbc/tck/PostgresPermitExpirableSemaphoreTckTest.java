package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.PermitExpirableSemaphoreTck;
import java.time.Duration;

/** The TCK's {@link PermitExpirableSemaphoreTck} on PostgreSQL's counts tables, each client on its own pool from a {@code jdbc:} URI. */
class PostgresPermitExpirableSemaphoreTckTest extends PermitExpirableSemaphoreTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(JdbcTckDatabases.postgres(), options);
    }

    @Override
    protected String backendName() {
        return "jdbc";
    }

    @Override
    protected Duration watchdogTimeout() {
        return JdbcTckDatabases.WATCHDOG;
    }
}
