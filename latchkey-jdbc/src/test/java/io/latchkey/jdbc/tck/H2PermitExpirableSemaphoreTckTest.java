package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.PermitExpirableSemaphoreTck;
import java.time.Duration;

/** The TCK's {@link PermitExpirableSemaphoreTck} on H2's counts tables, each client on its own pool from a {@code jdbc:} URI. */
class H2PermitExpirableSemaphoreTckTest extends PermitExpirableSemaphoreTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(JdbcTckDatabases.H2, options);
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
