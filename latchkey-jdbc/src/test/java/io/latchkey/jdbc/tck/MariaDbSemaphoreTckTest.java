package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.SemaphoreTck;
import java.time.Duration;

/** The TCK's {@link SemaphoreTck} on MariaDB's counts tables, each client on its own pool from a {@code jdbc:} URI. */
class MariaDbSemaphoreTckTest extends SemaphoreTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(JdbcTckDatabases.mariaDb(), options);
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
