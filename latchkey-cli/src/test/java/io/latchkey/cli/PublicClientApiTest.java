package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.etcd.EtcdLockClient;
import io.latchkey.file.FileLockClient;
import io.latchkey.jdbc.JdbcAdvisoryLockClient;
import io.latchkey.jdbc.JdbcLockClient;
import io.latchkey.redis.RedisLockClient;
import io.latchkey.zookeeper.ZooKeeperLockClient;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A module-path user of a backend module reads {@code io.latchkey} and the backend's package but cannot name the
 * engine's types in {@code io.latchkey.core} (exported only to the backend modules): no public method of a backend's
 * client, its own or inherited from the engine's base class, may take or return one.
 */
class PublicClientApiTest {

    @Test
    void noPublicMethodOfABackendClientNamesAnEngineType() {
        List<String> leaks = new ArrayList<>();
        for (Class<?> client : List.of(RedisLockClient.class, ZooKeeperLockClient.class, EtcdLockClient.class,
                JdbcLockClient.class, JdbcAdvisoryLockClient.class, FileLockClient.class)) {
            for (Method m : client.getMethods()) {
                List<Class<?>> types = new ArrayList<>(List.of(m.getParameterTypes()));
                types.add(m.getReturnType());
                for (Class<?> t : types) {
                    if (t.getPackageName().startsWith("io.latchkey.core")) {
                        leaks.add(client.getSimpleName() + "." + m.getName() + " names " + t.getName());
                    }
                }
            }
        }
        assertThat(leaks).isEmpty();
    }
}
