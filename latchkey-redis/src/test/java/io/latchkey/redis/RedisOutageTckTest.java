package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.OutageTck;
import io.latchkey.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The TCK's {@link OutageTck}: the class's redis-server is stopped and started again (empty). */
class RedisOutageTckTest extends OutageTck {

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
    protected void takeBackendDown() {
        redis.stop();
    }

    @Override
    protected void bringBackendUp() {
        redis.start();
    }
}
