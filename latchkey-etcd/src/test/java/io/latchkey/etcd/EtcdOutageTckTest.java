package io.latchkey.etcd;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.OutageTck;
import io.latchkey.testing.EtcdServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TCK's {@link OutageTck}: the etcd server is killed (SIGKILL, as a crash) and restarted on the same ports with
 * the same data, so revisions keep growing across the outage.
 */
class EtcdOutageTckTest extends OutageTck {

    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(etcd.uri(), options);
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
        etcd.server().kill();
    }

    @Override
    protected void bringBackendUp() {
        etcd.server().start();
    }
}
