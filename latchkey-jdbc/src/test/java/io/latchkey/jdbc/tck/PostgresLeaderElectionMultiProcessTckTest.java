package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.time.Duration;
import io.latchkey.tck.LeaderElectionMultiProcessTck;

/** Two JVMs contend for a PostgreSQL lease-table lock; the holder is SIGKILLed and the other takes over. */
class PostgresLeaderElectionMultiProcessTckTest extends LeaderElectionMultiProcessTck {

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
