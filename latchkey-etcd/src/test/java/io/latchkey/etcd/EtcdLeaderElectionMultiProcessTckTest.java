package io.latchkey.etcd;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaderElectionMultiProcessTck;
import io.latchkey.testing.EtcdServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link LeaderElectionMultiProcessTck}: a SIGKILLed or SIGSTOPped leader JVM's etcd lease runs out and the next candidate leads. */
class EtcdLeaderElectionMultiProcessTckTest extends LeaderElectionMultiProcessTck {

    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(etcd.uri(), options);
    }

    @Override
    protected String childUri() {
        return etcd.uri();
    }

    @Override
    protected String backendName() {
        return "etcd";
    }
}
