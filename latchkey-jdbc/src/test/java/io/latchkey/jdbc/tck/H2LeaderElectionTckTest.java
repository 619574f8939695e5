package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.time.Duration;
import io.latchkey.tck.LeaderElectionTck;

/** The TCK's {@link LeaderElectionTck} on the H2 lease table, each client on its own pool from a {@code jdbc:} URI. */
class H2LeaderElectionTckTest extends LeaderElectionTck {

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
