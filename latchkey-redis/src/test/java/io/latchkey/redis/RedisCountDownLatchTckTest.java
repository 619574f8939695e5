package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.CountDownLatchTck;
import io.latchkey.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link CountDownLatchTck} against a real redis-server (skipped while Redis does not list the capability). */
class RedisCountDownLatchTckTest extends CountDownLatchTck {

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
