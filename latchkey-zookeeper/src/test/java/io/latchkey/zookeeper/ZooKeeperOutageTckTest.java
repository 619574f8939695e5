package io.latchkey.zookeeper;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.OutageTck;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK's {@link OutageTck}: the clients reach the server through a proxy that is cut (every connection closed,
 * new ones refused) and restored, which is what a client sees of a crashed or partitioned ZooKeeper.
 */
class ZooKeeperOutageTckTest extends OutageTck {

    private static TcpProxy proxy;

    @BeforeAll
    static void startProxy() throws Exception {
        proxy = new TcpProxy(SharedZooKeeper.server().port());
    }

    @AfterAll
    static void stopProxy() throws Exception {
        proxy.close();
    }

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect("zookeeper://127.0.0.1:" + proxy.port(), options);
    }

    @Override
    protected String backendName() {
        return "zookeeper";
    }

    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofMillis(2000);
    }

    @Override
    protected void takeBackendDown() {
        proxy.cut();
    }

    @Override
    protected void bringBackendUp() {
        proxy.restore();
    }
}
