package io.latchkey.redis;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.ServerStateTck;
import io.latchkey.testing.RedisServerExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TCK's {@link ServerStateTck} on a standalone redis-server: server objects are its keys ({@code DBSIZE}; the
 * namespace's one token key is the bounded bookkeeping), and losing the data is a restart without persistence.
 */
class RedisServerStateTckTest extends ServerStateTck {

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
    protected long serverObjects() {
        return (Long) redis.execute("DBSIZE");
    }

    @Override
    protected void loseServerData() {
        redis.stop();
        redis.start();
    }
}
