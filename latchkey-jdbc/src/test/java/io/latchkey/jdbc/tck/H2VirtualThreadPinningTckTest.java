package io.latchkey.jdbc.tck;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.time.Duration;
import io.latchkey.tck.VirtualThreadPinningTck;

/** The TCK's {@link VirtualThreadPinningTck} on the H2 lease table, each client on its own pool from a {@code jdbc:} URI. */
class H2VirtualThreadPinningTckTest extends VirtualThreadPinningTck {

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
