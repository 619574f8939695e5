package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.LeaseContractTck;
import io.latchkey.testing.RedisClusterExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link LeaseContractTck} against a real three-master Redis Cluster started for this class. */
class RedisClusterLeaseContractTckTest extends LeaseContractTck {

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
