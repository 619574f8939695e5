package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LockContractTck;
import java.time.Duration;

/** The TCK's {@link LockContractTck} on MariaDb advisory locks ({@code JdbcAdvisoryLockClient}). */
class MariaDbAdvisoryLockContractTckTest extends LockContractTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return AdvisoryPools.client(JdbcTckDatabases.mariaDb(), options);
    }

    @Override
    protected String backendName() {
        return "jdbc-advisory";
    }

    @Override
    protected Duration watchdogTimeout() {
        return JdbcTckDatabases.WATCHDOG;
    }

    /** Advisory locks live in the server's lock table, which records no client names. */
    @Override
    protected boolean recordsHolder() {
        return false;
    }
}
