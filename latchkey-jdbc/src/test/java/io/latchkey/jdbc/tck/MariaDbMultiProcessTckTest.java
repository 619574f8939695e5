package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.MultiProcessTck;
import java.time.Duration;

/** JVMs holding a MariaDB lease-table lock: SIGKILLed (the lease runs out) or SIGTERMed (released on exit). */
class MariaDbMultiProcessTckTest extends MultiProcessTck {

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
