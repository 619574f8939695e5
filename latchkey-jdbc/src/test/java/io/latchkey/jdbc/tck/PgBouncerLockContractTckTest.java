package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LockContractTck;
import io.latchkey.testing.sql.PgBouncerServer;
import java.time.Duration;

/**
 * The TCK's {@link LockContractTck} on the Postgres lease table through PgBouncer in transaction pooling mode (each
 * client on its own pool from a {@code jdbc:} URI, the pooler named in it, waiters polling).
 */
class PgBouncerLockContractTckTest extends LockContractTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(PgBouncerServer.shared().jdbcUrl() + "&latchkey.pooling=transaction", options);
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
