package io.latchkey.etcd;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.FencedStoreTck;
import io.latchkey.testing.EtcdServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link FencedStoreTck} against a real etcd server (one per test class). */
class EtcdFencedStoreTckTest extends FencedStoreTck {

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

    /** Also the etcd lease's TTL (whole seconds, server minimum about 2 s): roomy on a loaded 2-core machine. */
    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofSeconds(2);
    }
}
