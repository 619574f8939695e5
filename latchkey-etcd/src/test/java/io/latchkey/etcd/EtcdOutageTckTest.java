package io.latchkey.etcd;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.OutageTck;
import io.latchkey.testing.EtcdServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK's {@link OutageTck}: the etcd server is killed (SIGKILL, as a crash) and restarted on the same ports with
 * the same data, so revisions keep growing across the outage.
 */
class EtcdOutageTckTest extends OutageTck {

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

    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofSeconds(2);
    }

    @Override
    protected void takeBackendDown() {
        server.kill();
    }

    @Override
    protected void bringBackendUp() {
        server.start();
    }
}
