package io.latchkey.zookeeper;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LockContractTck;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The TCK's {@link LockContractTck} against a real 3-member ensemble in this JVM. */
class ZooKeeperEnsembleLockContractTckTest extends LockContractTck {

    private static ZooKeeperEnsemble ensemble;

    @BeforeAll
    static void start() throws Exception {
        ensemble = new ZooKeeperEnsemble(3);
    }

    @AfterAll
    static void stop() {
        if (ensemble != null) {
            ensemble.close();
        }
    }

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(ensemble.uri(), options);
    }

    @Override
    protected String backendName() {
        return "zookeeper";
    }

    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofMillis(2000);
    }
}
