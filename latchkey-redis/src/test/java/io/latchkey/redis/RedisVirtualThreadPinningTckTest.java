package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.VirtualThreadPinningTck;
import io.latchkey.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link VirtualThreadPinningTck} against a real redis-server started for this class. */
class RedisVirtualThreadPinningTckTest extends VirtualThreadPinningTck {

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
}
