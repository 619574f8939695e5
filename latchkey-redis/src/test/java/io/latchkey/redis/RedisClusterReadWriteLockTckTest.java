package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.ReadWriteLockTck;
import io.latchkey.testing.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link ReadWriteLockTck} against a real three-master Redis Cluster started for this class. */
class RedisClusterReadWriteLockTckTest extends ReadWriteLockTck {

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(cluster.uri(), options);
    }

    @Override
    protected String backendName() {
        return "redis";
    }
}
