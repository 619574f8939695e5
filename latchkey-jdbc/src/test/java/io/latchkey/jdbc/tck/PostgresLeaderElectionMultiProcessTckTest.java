package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaderElectionMultiProcessTck;

/** The TCK's {@link LeaderElectionMultiProcessTck}: a SIGKILLed or SIGSTOPped leader JVM's PostgreSQL lease row expires and the next candidate leads. */
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
}
