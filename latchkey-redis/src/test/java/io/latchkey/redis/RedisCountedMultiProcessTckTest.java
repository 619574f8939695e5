package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.CountedMultiProcessTck;
import io.latchkey.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TCK's {@link CountedMultiProcessTck}: a SIGKILLed holder's permit is no longer renewed and expires;
 * count-downs of three JVMs at once.
 */
class RedisCountedMultiProcessTckTest extends CountedMultiProcessTck {

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
