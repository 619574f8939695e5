package io.latchkey.zookeeper;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaderElectionMultiProcessTck;

/** The TCK's {@link LeaderElectionMultiProcessTck}: a SIGKILLed or SIGSTOPped leader JVM's ZooKeeper session expires and the next candidate leads. */
class ZooKeeperLeaderElectionMultiProcessTckTest extends LeaderElectionMultiProcessTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(SharedZooKeeper.server().uri(), options);
    }

    @Override
    protected String backendName() {
        return "zookeeper";
    }

    @Override
    protected String childUri() {
        return SharedZooKeeper.server().uri();
    }
}
