package io.latchkey.cli.faults;

import io.latchkey.testing.EtcdServer;
import io.latchkey.testing.NetworkNamespace;
import io.latchkey.testing.NetworkSegment;
import io.latchkey.testing.RedisClusterSetup;
import io.latchkey.testing.RedisSentinelSetup;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.TestFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The servers {@code verify --faults --embedded KIND} starts itself (from the binaries on the {@code PATH}, like the
 * test fixtures, or in a JVM of its own for ZooKeeper), so that it can crash, restart and fail them over: the kinds,
 * and which class starts each ({@link RedisControls}, {@link SqlControls}, {@link ZooKeeperEnsembleControl},
 * {@link EtcdClusterControl}; a single etcd or ZooKeeper here), in a network namespace of its own
 * ({@link NamespacedServer}) for the partition faults.
 */
final class EmbeddedServers {

    /** The kinds {@code --embedded} accepts. */
    static final List<String> KINDS = List.of("redis", "redis-sentinel", "redis-cluster", "zookeeper",
            "zookeeper-ensemble", "etcd", "etcd-cluster", "postgresql", "mariadb", "postgresql-pgbouncer");

    /** The kinds whose server runs in a network namespace of its own, so that {@code partition-server} runs. */
    static final List<String> PARTITIONABLE = List.of("redis", "zookeeper", "etcd", "postgresql", "mariadb",
            "postgresql-pgbouncer");

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);

    private EmbeddedServers() {
    }

    /**
     * Starts a server of {@code kind}.
     *
     * @throws IllegalArgumentException for an unknown kind
     * @throws IllegalStateException if its binary is missing (naming the install command) or it does not start
     */
    static ServerControl start(String kind, Path dir, Duration lease) {
        return start(kind, dir, lease, false);
    }

    /**
     * Starts a server of {@code kind}; with {@code partitions} a kind of {@link #PARTITIONABLE} runs in a Linux network
     * namespace of its own (deleted by the control's {@code close()}), so that {@code partition-server} can cut it off.
     *
     * @throws IllegalStateException also if {@code partitions} and namespaces cannot be made (not root, no {@code ip}),
     *         naming what is missing
     */
    static ServerControl start(String kind, Path dir, Duration lease, boolean partitions) {
        String k = kind.toLowerCase(Locale.ROOT);
        String query = "";
        int q = k.indexOf('?');
        if (q >= 0) {
            // Redis URI options for the workers: redis-sentinel?replicaAcks=1
            query = kind.substring(q);
            k = k.substring(0, q);
            if (!k.equals("redis") && !k.equals("redis-sentinel")) {
                throw new IllegalArgumentException(String.format("--embedded takes URI options (KIND?replicaAcks=1) "
                        + "only for redis and redis-sentinel but was '%s'", kind));
            }
        }
        if (partitions && PARTITIONABLE.contains(k)) {
            NetworkNamespace ns = NetworkNamespace.create("the partition-server fault");
            try {
                return new NamespacedServer(start(k, dir, lease, ns, true, query), ns);
            } catch (RuntimeException e) {
                ns.close();
                throw e;
            }
        }
        return start(k, dir, lease, null, partitions, query);
    }

    /**
     * @param partitions whether a deployment of several members runs them in namespaces (etcd-cluster)
     * @param query Redis URI options for the workers ({@code ?replicaAcks=1}), or {@code ""}
     */
    private static ServerControl start(String kind, Path dir, Duration lease, NetworkNamespace ns, boolean partitions,
                                       String query) {
        switch (kind) {
            case "redis":
                return RedisControls.redis(ns == null ? RedisServer.standalone().start()
                        : RedisServer.standalone().inNamespace(ns).start(), query);
            case "redis-sentinel": {
                // The fixture's default down-after (5 s): shorter, a loaded machine fails over by accident.
                if (!partitions) {
                    return RedisControls.sentinel(new RedisSentinelSetup().start(), null, query);
                }
                // five processes and the namespace of the worker that stays with the master in a split brain
                NetworkSegment segment = NetworkSegment.create("the partition faults of redis-sentinel",
                        RedisControls.SENTINEL_PROCESSES + 1);
                try {
                    return RedisControls.sentinel(new RedisSentinelSetup().inNetwork(segment).start(), segment, query);
                } catch (RuntimeException e) {
                    segment.close();
                    throw e;
                }
            }
            case "redis-cluster": {
                if (!partitions) {
                    return RedisControls.cluster(RedisClusterSetup.startWithReplicas(), null);
                }
                NetworkSegment segment = NetworkSegment.create("the partition faults of redis-cluster",
                        2 * RedisClusterSetup.MASTERS);
                try {
                    return RedisControls.cluster(RedisClusterSetup.startWithReplicas(segment), segment);
                } catch (RuntimeException e) {
                    segment.close();
                    throw e;
                }
            }
            case "zookeeper":
                return zooKeeper(dir.resolve("zookeeper"), lease, ns);
            case "zookeeper-ensemble":
                return ZooKeeperEnsembleControl.start(dir.resolve("zookeeper-ensemble"), lease, partitions);
            case "etcd-cluster":
                return EtcdClusterControl.start(dir.resolve("etcd-cluster"), partitions);
            case "etcd":
                return etcd(ns == null ? EtcdServer.started() : new EtcdServer().inNamespace(ns).start());
            case "postgresql":
            case "postgresql-pgbouncer":
            case "mariadb":
                return SqlControls.start(kind, ns);
            default:
                throw new IllegalArgumentException(String.format("--embedded must be one of %s but was '%s'",
                        String.join(", ", KINDS), kind));
        }
    }

    private static ServerControl etcd(EtcdServer server) {
        return new EmbeddedServerControl("etcd", server.uri(), "etcd at " + server.host() + ":" + server.port()
                + " (one member, data kept across restarts)", Set.of(FaultKind.SERVER_RESTART), true) {
            @Override
            public void crash() {
                server.kill();
            }

            @Override
            public void restart() {
                server.start();
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    /** @param ns the network namespace to run the server in, or {@code null} for loopback */
    private static ServerControl zooKeeper(Path dataDir, Duration lease, NetworkNamespace ns) {
        int port = TestFiles.freePort();
        // Sessions expire on tick boundaries and last at least two ticks: a tick well below the lease.
        long tick = Math.max(50, Math.min(500, lease.toMillis() / 8));
        String host = ns == null ? "127.0.0.1" : ns.address();
        List<String> args = ns == null ? List.of(Integer.toString(port), dataDir.toString(), Long.toString(tick))
                : List.of(Integer.toString(port), dataDir.toString(), Long.toString(tick), host);
        ServerJvm zk = new ServerJvm("zookeeper-" + port, ZooKeeperServerMain.class, args,
                ns == null ? List.of() : ns.wrap(List.of())).start(START_TIMEOUT);
        return new EmbeddedServerControl("zookeeper", "zookeeper://" + host + ":" + port, "ZooKeeper at " + host + ":" + port
                + " (its own JVM, data kept across restarts)", Set.of(FaultKind.SERVER_RESTART), true) {
            @Override
            public void crash() {
                zk.kill();
            }

            @Override
            public void restart() {
                zk.start(START_TIMEOUT);
            }

            @Override
            public void close() {
                zk.kill();
                TestFiles.deleteRecursively(dataDir);
            }
        };
    }
}
