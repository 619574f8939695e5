package io.latchkey.zookeeper;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.CountedMultiProcessTck;
import java.time.Duration;

/**
 * The TCK's {@link CountedMultiProcessTck}: a SIGKILLed holder's session expires and its ephemeral permit nodes
 * go; count-downs of three JVMs at once.
 */
class ZooKeeperCountedMultiProcessTckTest extends CountedMultiProcessTck {

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
