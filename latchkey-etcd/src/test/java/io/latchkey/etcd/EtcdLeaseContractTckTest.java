package io.latchkey.etcd;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaseContractTck;
import io.latchkey.testing.EtcdServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The TCK's {@link LeaseContractTck} against a real etcd server (one per test class). */
class EtcdLeaseContractTckTest extends LeaseContractTck {

    private static EtcdServer server;

    @BeforeAll
    static void startServer() {
        server = EtcdServer.started();
    }

    @AfterAll
    static void stopServer() {
        server.close();
    }

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(server.uri(), options);
    }

    @Override
    protected String backendName() {
        return "etcd";
    }

    /** Also the etcd lease's TTL (whole seconds, server minimum about 2 s): roomy on a loaded 2-core machine. */
    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofSeconds(2);
    }
}
