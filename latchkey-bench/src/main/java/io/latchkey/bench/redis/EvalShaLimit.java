package io.latchkey.bench.redis;

import io.latchkey.bench.Contender;
import io.latchkey.bench.Cycle;
import io.latchkey.bench.Scenario;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The ceiling for a lock that acquires in one round trip and releases in one: two EVALSHA calls of a trivial
 * script per cycle through raw Lettuce on one shared (multiplexed) connection, each thread on its own key.
 */
final class EvalShaLimit implements Contender {

    private static final String SCRIPT = "return redis.call('exists', KEYS[1])";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final String sha;

    EvalShaLimit(String redisUri) {
        this.client = RedisClient.create(redisUri);
        this.connection = client.connect();
        this.sha = connection.sync().scriptLoad(SCRIPT);
    }

    @Override
    public String name() {
        return "2× EVALSHA, raw Lettuce";
    }

    @Override
    public String setup() {
        return "raw Lettuce `RedisClient.create(uri).connect()`: one multiplexed connection shared by all threads, "
                + "synchronous API, two `EVALSHA` of `" + SCRIPT + "` per cycle";
    }

    @Override
    public Cycle.PerThread cycles(Scenario scenario, String runId) {
        RedisCommands<String, String> sync = connection.sync();
        return threadIndex -> {
            String[] key = {"bench:limit:" + runId + ":" + threadIndex};
            return () -> {
                sync.evalsha(sha, ScriptOutputType.INTEGER, key);
                sync.evalsha(sha, ScriptOutputType.INTEGER, key);
            };
        };
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
