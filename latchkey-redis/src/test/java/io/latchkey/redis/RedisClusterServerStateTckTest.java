package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.ServerStateTck;
import io.latchkey.testing.RedisClusterExtension;
import io.latchkey.testing.RedisClusterSetup;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TCK's {@link ServerStateTck} on a three-master Redis Cluster. Server objects are the masters' keys other than
 * the per-slot token keys ({@code …{<slot tag>}:latchkey:tokens}): those are the bounded bookkeeping here (at most
 * one per slot, 16,384), which 200 names on 200 slots would otherwise count as growth; {@link #tokenKeys()} checks
 * them separately. Losing the data is {@code FLUSHALL} on every master: what a restart without persistence leaves.
 */
class RedisClusterServerStateTckTest extends ServerStateTck {

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

    @Override
    protected long serverObjects() {
        long keys = 0;
        for (int i = 0; i < RedisClusterSetup.MASTERS; i++) {
            keys += (Long) cluster.setup().execute(i, "DBSIZE");
        }
        long tokenKeys = tokenKeys();
        assertThat(tokenKeys).as("token keys: at most one per slot").isLessThanOrEqualTo(RedisClusterSetup.SLOTS);
        return keys - tokenKeys;
    }

    /** The per-slot token keys on all masters (SCAN MATCH). */
    private long tokenKeys() {
        long count = 0;
        for (int i = 0; i < RedisClusterSetup.MASTERS; i++) {
            String cursor = "0";
            do {
                List<?> page = (List<?>) cluster.setup().execute(i, "SCAN", cursor, "MATCH",
                        "*:" + FencingTokens.KEY_SUFFIX, "COUNT", "1000");
                cursor = String.valueOf(page.get(0));
                count += ((List<?>) page.get(1)).size();
            } while (!cursor.equals("0"));
        }
        return count;
    }

    @Override
    protected void loseServerData() {
        cluster.setup().flushAll();
    }
}
