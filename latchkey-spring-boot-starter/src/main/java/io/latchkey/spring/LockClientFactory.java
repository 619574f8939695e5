package io.latchkey.spring;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.jdbc.JdbcLockClient;
import io.latchkey.jdbc.JdbcOptions;
import io.latchkey.redis.RedisLockClient;
import io.latchkey.zookeeper.ZooKeeperLockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.apache.curator.framework.CuratorFramework;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * Builds the application's {@link LockClient}: from {@code latchkey.uri}, else on the first kind of existing bean
 * found in the order Lettuce {@code RedisClient}, {@code RedisClusterClient}, {@code CuratorFramework},
 * {@code DataSource}. A kind counts only when exactly one such bean exists (or one is primary) and its Latchkey
 * backend module is on the class path.
 *
 * <p>The backend classes are optional: each is touched only inside a nested class that is loaded after its
 * presence was checked.
 */
final class LockClientFactory {

    private final ListableBeanFactory beans;
    private final LatchkeyProperties properties;
    private final ClassLoader classLoader;

    LockClientFactory(ListableBeanFactory beans, LatchkeyProperties properties, ClassLoader classLoader) {
        this.beans = beans;
        this.properties = properties;
        this.classLoader = classLoader;
    }

    LockClient create(ClientOptions options) {
        if (properties.getUri() != null) {
            return LockClient.connect(properties.getUri(), options);
        }
        List<String> looked = new ArrayList<>();
        if (present("io.latchkey.redis.RedisLockClient", "io.lettuce.core.RedisClient")) {
            LockClient client = Redis.create(beans, options);
            if (client != null) {
                return client;
            }
            looked.add("no single io.lettuce.core.RedisClient or RedisClusterClient bean");
        } else {
            looked.add("latchkey-redis (with Lettuce) not on the class path");
        }
        if (present("io.latchkey.zookeeper.ZooKeeperLockClient", "org.apache.curator.framework.CuratorFramework")) {
            LockClient client = ZooKeeper.create(beans, options);
            if (client != null) {
                return client;
            }
            looked.add("no single org.apache.curator.framework.CuratorFramework bean");
        } else {
            looked.add("latchkey-zookeeper not on the class path");
        }
        if (present("io.latchkey.jdbc.JdbcLockClient")) {
            LockClient client = Jdbc.create(beans, options, properties.getJdbc());
            if (client != null) {
                return client;
            }
            looked.add("no single javax.sql.DataSource bean");
        } else {
            looked.add("latchkey-jdbc not on the class path");
        }
        throw new LockClientNotConfiguredException(looked);
    }

    private boolean present(String... classNames) {
        for (String name : classNames) {
            if (!ClassUtils.isPresent(name, classLoader)) {
                return false;
            }
        }
        return true;
    }

    private static final class Redis {
        static LockClient create(ListableBeanFactory beans, ClientOptions options) {
            RedisClient client = beans.getBeanProvider(RedisClient.class).getIfUnique();
            if (client != null) {
                return RedisLockClient.create(client, options);
            }
            RedisClusterClient cluster = beans.getBeanProvider(RedisClusterClient.class).getIfUnique();
            return cluster == null ? null : RedisLockClient.create(cluster, options);
        }
    }

    private static final class ZooKeeper {
        static LockClient create(ListableBeanFactory beans, ClientOptions options) {
            CuratorFramework curator = beans.getBeanProvider(CuratorFramework.class).getIfUnique();
            return curator == null ? null : ZooKeeperLockClient.create(curator, options);
        }
    }

    private static final class Jdbc {
        static LockClient create(ListableBeanFactory beans, ClientOptions options, LatchkeyProperties.Jdbc jdbc) {
            DataSource dataSource = beans.getBeanProvider(DataSource.class).getIfUnique();
            if (dataSource == null) {
                return null;
            }
            JdbcOptions jdbcOptions = JdbcOptions.builder()
                    .tableName(jdbc.getTableName())
                    .createTable(jdbc.isCreateTable())
                    .build();
            return JdbcLockClient.create(dataSource, options, jdbcOptions);
        }
    }
}
