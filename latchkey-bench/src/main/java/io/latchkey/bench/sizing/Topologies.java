package io.latchkey.bench.sizing;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.jdbc.JdbcLockClient;
import io.latchkey.jdbc.JdbcOptions;
import io.latchkey.testing.RedisClusterSetup;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.sql.PostgresServer;
import java.util.List;
import java.util.function.Supplier;

/** The topologies of the sizing suite, in the order they run, each started only when selected. */
final class Topologies {

    /** The client's connection pool on PostgreSQL: enough for the 16-thread row, more only queue on 2 cores. */
    static final int SQL_POOL = 16;

    /** A topology's key and how to start it. */
    record Entry(String key, Supplier<Topology> start) { }

    private Topologies() {
    }

    static List<Entry> all() {
        return List.of(
                new Entry("redis-1", Topologies::redis),
                new Entry("redis-cluster", Topologies::redisCluster),
                new Entry("zookeeper-1", () -> ZooKeeperEnsemble.start(1)),
                new Entry("zookeeper-3", () -> ZooKeeperEnsemble.start(3)),
                new Entry("etcd-1", () -> EtcdCluster.start(1)),
                new Entry("etcd-3", () -> EtcdCluster.start(3)),
                new Entry("postgresql", Topologies::postgres));
    }

    private static Topology redis() {
        RedisServer server = RedisServer.standalone().start();
        String version = String.valueOf(server.execute("INFO", "server")).lines()
                .filter(l -> l.startsWith("redis_version:")).map(l -> l.substring(14).trim()).findFirst().orElse("?");
        return new Simple("redis-1", "Redis " + version + ", one server", 1,
                "redis-server without persistence (no RDB, no AOF), on a free port", server.uri(), server::close);
    }

    private static Topology redisCluster() {
        RedisClusterSetup cluster = RedisClusterSetup.start();
        return new Simple("redis-cluster", "Redis Cluster, 3 masters (no replicas)", 3,
                "three redis-server masters without persistence, 16384 slots split evenly, the client given every "
                        + "master's address; names spread over the slots by their hash", cluster.uri(), cluster::close);
    }

    private static Topology postgres() {
        PostgresServer server = new PostgresServer();
        server.start();
        String url = server.jdbcUrl();
        return new Topology() {
            @Override
            public String key() {
                return "postgresql";
            }

            @Override
            public String label() {
                return "PostgreSQL, one server";
            }

            @Override
            public int nodes() {
                return 1;
            }

            @Override
            public String setup() {
                return "the test fixture's PostgreSQL: fsync=off, synchronous_commit=off, shared_buffers=32MB (commits "
                        + "do not wait for the disk); JdbcLockClient.create(url, " + SQL_POOL + ", ...) with its "
                        + "lease table";
            }

            @Override
            public LockClient connect(ClientOptions options) {
                return JdbcLockClient.create(url, SQL_POOL, options, JdbcOptions.defaults());
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    /** A topology behind one URI for {@link LockClient#connect(String, ClientOptions)}. */
    record Simple(String key, String label, int nodes, String setup, String uri, Runnable closer)
            implements Topology {
        @Override
        public LockClient connect(ClientOptions options) {
            return LockClient.connect(uri, options);
        }

        @Override
        public void close() {
            closer.run();
        }
    }
}
