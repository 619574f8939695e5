package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LockContractTck;
import io.latchkey.testing.RedisSentinelSetup;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK's {@link LockContractTck} through a {@code redis-sentinel://} URI: a real master, replica and three
 * sentinels started for this class; Lettuce finds the master through the sentinels.
 */
class RedisSentinelLockContractTckTest extends LockContractTck {

    private static RedisSentinelSetup sentinel;

    @BeforeAll
    static void startSentinel() {
        sentinel = new RedisSentinelSetup().start();
    }

    @AfterAll
    static void stopSentinel() {
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(sentinel.uri(), options);
    }

    @Override
    protected String backendName() {
        return "redis";
    }
}
