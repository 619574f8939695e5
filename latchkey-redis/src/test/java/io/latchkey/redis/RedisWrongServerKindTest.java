package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.RedisClusterExtension;
import io.latchkey.testing.RedisSentinelExtension;
import io.latchkey.testing.RedisSentinelSetup;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A URI that reaches a Redis server locks cannot live on fails at connect, soon, naming what answered and the URI
 * that reaches what was meant: a replica, a Sentinel, a Cluster node, a standalone server given as a Sentinel or as
 * a Cluster seed, a master name the Sentinels do not know, a database the server does not have. Nothing is written.
 */
class RedisWrongServerKindTest {

    @RegisterExtension
    static final RedisSentinelExtension sentinel = new RedisSentinelExtension();

    @RegisterExtension
    static final RedisClusterExtension cluster = new RedisClusterExtension();

    /** An ACL user allowed its keys and scripts but neither ROLE nor INFO: the check steps aside. */
    @RegisterExtension
    static final RedisServerExtension restricted = RedisServerExtension.builder()
            .aclUser("app", "pw", "~* &* +@all -role -info").build();

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private static ClientOptions options() {
        return ClientOptions.builder().operationTimeout(TIMEOUT).build();
    }

    @Test
    void aReplicaIsRefusedNamingItsMaster() {
        RedisSentinelSetup s = sentinel.setup();
        String master = "127.0.0.1:" + s.masterPort();
        assertRefused("redis://127.0.0.1:" + s.replicaPort(),
                "cannot connect to redis at 127.0.0.1:" + s.replicaPort() + ": it is a replica of " + master
                        + ": locks are written on the master, so connect to redis://" + master);
    }

    @Test
    void aSentinelGivenAsAServerIsRefusedWithTheSentinelUri() {
        int port = sentinel.setup().sentinelPorts().get(0);
        assertRefused("redis://127.0.0.1:" + port, "it is a Redis Sentinel, not the server that keeps the locks: "
                + "use redis-sentinel://127.0.0.1:" + port + "/" + RedisSentinelSetup.MASTER_NAME);
    }

    @Test
    void aMasterNameTheSentinelsDoNotKnowIsNamedWithTheOnesTheyDo() {
        String uri = "redis-sentinel://" + sentinel.setup().sentinelAddresses() + "/no-such-master";
        assertRefused(uri, "the Sentinels monitor no master named 'no-such-master' (they monitor: "
                + RedisSentinelSetup.MASTER_NAME + ")");
    }

    @Test
    void aServerGivenAsASentinelIsRefusedWithItsOwnUri() {
        int port = sentinel.setup().masterPort();
        assertRefused("redis-sentinel://127.0.0.1:" + port + "/" + RedisSentinelSetup.MASTER_NAME,
                "127.0.0.1:" + port + " is not a Redis Sentinel but a Redis server (role master): use redis://127.0.0.1:"
                        + port);
    }

    @Test
    void aStandaloneServerGivenAsAClusterSeedIsRefused() {
        assertRefused("redis-cluster://127.0.0.1:" + sentinel.setup().masterPort(),
                "the URI's servers run without cluster mode");
    }

    @Test
    void aClusterNodeGivenAsAServerIsRefusedWithTheClusterUri() {
        int port = cluster.setup().ports().get(0);
        assertRefused("redis://127.0.0.1:" + port, "it is a node of a Redis Cluster, where a plain connection "
                + "reaches only this node's slots: use redis-cluster://127.0.0.1:" + port);
    }

    @Test
    void aDatabaseTheServerDoesNotHaveIsNamed() {
        assertRefused(sentinel.setup().masterUri() + "/99", "the server refused the connection's setup (ERR DB index "
                + "is out of range): the URI's database number is not below the server's 'databases' setting");
    }

    @Test
    void aUserWithoutRoleAndInfoConnectsAndLocks() {
        try (LockClient client = LockClient.connect(restricted.uri(), options())) {
            DistributedLock lock = client.lock("kind-check");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        }
    }

    @Test
    void theRightUrisStillConnect() {
        RedisSentinelSetup s = sentinel.setup();
        for (String uri : List.of(s.masterUri(), s.uri(), cluster.uri())) {
            try (LockClient client = LockClient.connect(uri, options())) {
                DistributedLock lock = client.lock("kind-check");
                assertThat(lock.tryLock()).as(uri).isTrue();
                lock.unlock();
            }
        }
    }

    @Test
    void aServerThatMayEvictLockKeysIsNamedInAWarning() {
        assertThat(RedisServerKind.evictionWarning("the Redis server at h:1",
                "# Memory\r\nmaxmemory:104857600\r\nmaxmemory_policy:volatile-lru\r\n"))
                .startsWith("the Redis server at h:1 may evict lock keys when it reaches its memory limit (maxmemory "
                        + "104857600 bytes, maxmemory-policy volatile-lru)")
                .endsWith("with maxmemory-policy noeviction");
        assertThat(RedisServerKind.evictionWarning("s", "maxmemory:104857600\r\nmaxmemory_policy:noeviction\r\n"))
                .as("does not evict").isNull();
        assertThat(RedisServerKind.evictionWarning("s", "maxmemory:0\r\nmaxmemory_policy:allkeys-lru\r\n"))
                .as("no limit").isNull();
        assertThat(RedisServerKind.evictionWarning("s", null)).as("did not say").isNull();
    }

    @Test
    void aServerThatMayEvictLockKeysStillConnects() {
        RedisSentinelSetup s = sentinel.setup();
        s.master("CONFIG", "SET", "maxmemory", "512mb");
        s.master("CONFIG", "SET", "maxmemory-policy", "volatile-lru");
        try (LockClient client = LockClient.connect(s.masterUri(), options())) {
            DistributedLock lock = client.lock("kind-check");
            assertThat(lock.tryLock()).isTrue();
            lock.unlock();
        } finally {
            s.master("CONFIG", "SET", "maxmemory-policy", "noeviction");
            s.master("CONFIG", "SET", "maxmemory", "0");
        }
    }

    private void assertRefused(String uri, String message) {
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect(uri, options()))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining(message);
        assertThat((System.nanoTime() - start) / 1_000_000).as("within the timeout")
                .isLessThan(TIMEOUT.toMillis() + 500);
        assertThat(sentinel.setup().master("EXISTS", "kind-check")).as("nothing written").isEqualTo(0L);
    }
}
