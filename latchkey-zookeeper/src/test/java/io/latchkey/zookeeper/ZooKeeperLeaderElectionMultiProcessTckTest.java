package io.latchkey.zookeeper;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaderElectionMultiProcessTck;
import java.time.Duration;

/** The TCK's {@link LeaderElectionMultiProcessTck}: a SIGKILLed holder's session expires and its lock passes on. */
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

    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofMillis(2000);
    }
}
