package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.FencedStoreTck;
import io.latchkey.testing.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link FencedStoreTck} against a real three-master Redis Cluster started for this class. */
class RedisClusterFencedStoreTckTest extends FencedStoreTck {

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
