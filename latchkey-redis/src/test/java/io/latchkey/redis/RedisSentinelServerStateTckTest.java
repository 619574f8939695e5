package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.ServerStateTck;
import io.latchkey.testing.RedisSentinelSetup;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK's {@link ServerStateTck} through Sentinel: server objects are the master's keys, and losing the data is
 * a failover to a replica that was cut off before the test's writes (SIGSTOP, replication link closed), so the
 * promoted replica has neither the holds nor the namespace's latest token: an un-acknowledged failover.
 */
class RedisSentinelServerStateTckTest extends ServerStateTck {

    private static RedisSentinelSetup sentinel;

    @BeforeAll
    static void startSentinel() {
        sentinel = new RedisSentinelSetup(Duration.ofSeconds(2)).start();
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

    /** As in RedisSentinelLockContractTckTest: five processes on a shared 2-core machine. */
    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofSeconds(2);
    }

    /** The clients find the promoted replica through the sentinels after the failover: allow for it. */
    @Override
    protected Duration slack() {
        return Duration.ofSeconds(15);
    }

    @Override
    protected long serverObjects() {
        return (Long) sentinel.master("DBSIZE");
    }

    @Override
    protected void prepareToLoseServerData() {
        sentinel.freezeReplica();
    }

    @Override
    protected void loseServerData() {
        sentinel.failover();
    }
}
