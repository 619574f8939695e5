package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.CountedMultiProcessTck;
import java.time.Duration;

/** JVMs that die holding MariaDB permits, and JVMs that count one latch down at once. */
class MariaDbCountedMultiProcessTckTest extends CountedMultiProcessTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(JdbcTckDatabases.mariaDb(), options);
    }

    @Override
    protected String childUri() {
        return JdbcTckDatabases.mariaDb();
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
