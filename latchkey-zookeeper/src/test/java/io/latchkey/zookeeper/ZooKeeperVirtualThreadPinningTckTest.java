package io.latchkey.zookeeper;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.VirtualThreadPinningTck;
import java.time.Duration;

/** The TCK's {@link VirtualThreadPinningTck} against a real in-process ZooKeeper server. */
class ZooKeeperVirtualThreadPinningTckTest extends VirtualThreadPinningTck {

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(SharedZooKeeper.server().uri(), options);
    }

    @Override
    protected String backendName() {
        return "zookeeper";
    }

    /** Also the session timeout: long enough that a loaded 2-core machine does not expire sessions by accident. */
    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofMillis(2000);
    }
}
