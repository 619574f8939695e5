package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaderElectionMultiProcessTck;
import io.latchkey.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link LeaderElectionMultiProcessTck}: a SIGKILLed or SIGSTOPped leader JVM's Redis lock expires and the next candidate leads. */
class RedisLeaderElectionMultiProcessTckTest extends LeaderElectionMultiProcessTck {

    @RegisterExtension
    static final RedisServerExtension redis = RedisServerExtension.standalone();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(redis.uri(), options);
    }

    @Override
    protected String backendName() {
        return "redis";
    }

    @Override
    protected String childUri() {
        return redis.uri();
    }
}
