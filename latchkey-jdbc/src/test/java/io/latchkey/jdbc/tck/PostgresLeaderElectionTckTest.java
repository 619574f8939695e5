package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.time.Duration;
import io.latchkey.tck.LeaderElectionTck;

/** The TCK's {@link LeaderElectionTck} on the Postgres lease table, each client on its own pool from a {@code jdbc:} URI. */
class PostgresLeaderElectionTckTest extends LeaderElectionTck {

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
