package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.CountedMultiProcessTck;
import java.time.Duration;

/** JVMs that die holding PostgreSQL permits, and JVMs that count one latch down at once. */
class PostgresCountedMultiProcessTckTest extends CountedMultiProcessTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(JdbcTckDatabases.postgres(), options);
    }

    @Override
    protected String childUri() {
        return JdbcTckDatabases.postgres();
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
