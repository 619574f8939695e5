package io.latchkey.cli.faults;

import io.latchkey.testing.EtcdServer;
import io.latchkey.testing.FakeClock;
import io.latchkey.testing.NetworkNamespace;
import io.latchkey.testing.NetworkSegment;
import io.latchkey.testing.RedisClusterSetup;
import io.latchkey.testing.RedisSentinelSetup;
import io.latchkey.testing.RedisServer;
import io.latchkey.testing.TestFiles;
import io.latchkey.testing.sql.MariaDbServer;
import io.latchkey.testing.sql.PgBouncerServer;
import io.latchkey.testing.sql.PostgresServer;
import io.latchkey.testing.sql.SqlServerProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The servers {@code verify --faults --embedded KIND} starts itself (from the binaries on the {@code PATH}, like the
 * test fixtures, or in a JVM of its own for ZooKeeper), so that it can crash, restart and fail them over.
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
                return namespaced(start(k, dir, lease, ns, true, query), ns);
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
                return redis(ns == null ? RedisServer.standalone().start()
                        : RedisServer.standalone().inNamespace(ns).start(), query);
            case "redis-sentinel": {
                // The fixture's default down-after (5 s): shorter, a loaded machine fails over by accident.
                if (!partitions) {
                    return sentinel(new RedisSentinelSetup().start(), null, query);
                }
                // five processes and the namespace of the worker that stays with the master in a split brain
                NetworkSegment segment = NetworkSegment.create("the partition faults of redis-sentinel",
                        SENTINEL_PROCESSES + 1);
                try {
                    return sentinel(new RedisSentinelSetup().inNetwork(segment).start(), segment, query);
                } catch (RuntimeException e) {
                    segment.close();
                    throw e;
                }
            }
            case "redis-cluster": {
                if (!partitions) {
                    return cluster(RedisClusterSetup.startWithReplicas(), null);
                }
                NetworkSegment segment = NetworkSegment.create("the partition faults of redis-cluster",
                        2 * RedisClusterSetup.MASTERS);
                try {
                    return cluster(RedisClusterSetup.startWithReplicas(segment), segment);
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
            case "postgresql": {
                PostgresServer pg = new PostgresServer();
                if (ns != null) {
                    pg.inNamespace(ns);
                }
                // now() times the leases: a server under libfaketime lets the run jump its clock
                FakeClock clock = startOnFakeClock(pg);
                durableCommits(pg.jdbcUrl(), PostgresServer.USER);
                return sql("postgresql", pg.jdbcUrl(), pg.host() + ":" + pg.port(), () -> pg.kill(),
                        () -> pg.start(), () -> pg.close(), clock);
            }
            case "postgresql-pgbouncer": {
                // PostgreSQL behind PgBouncer in transaction pooling mode: the workers' URI names the pooler; a server
                // restart kills PostgreSQL, which PgBouncer reconnects to; a partition cuts PostgreSQL (in its
                // namespace) off from PgBouncer (on the host).
                PostgresServer pg = new PostgresServer();
                if (ns != null) {
                    pg.inNamespace(ns);
                }
                FakeClock clock = startOnFakeClock(pg);
                durableCommits(pg.jdbcUrl(), PostgresServer.USER);
                PgBouncerServer bouncer = new PgBouncerServer(pg, 20);
                try {
                    bouncer.start();
                } catch (RuntimeException e) {
                    pg.close();
                    throw e;
                }
                return sql("postgresql-pgbouncer", bouncer.jdbcUrl() + "&latchkey.pooling=transaction",
                        bouncer.host() + ":" + bouncer.port() + " (PgBouncer, pool_mode = transaction) in front of "
                                + "postgresql at " + pg.host() + ":" + pg.port(), () -> pg.kill(), () -> pg.start(),
                        () -> {
                            bouncer.close();
                            pg.close();
                        }, clock);
            }
            case "mariadb": {
                MariaDbServer m = new MariaDbServer();
                if (ns != null) {
                    m.inNamespace(ns);
                }
                FakeClock clock = startOnFakeClock(m);
                return sql("mariadb", m.jdbcUrl(), m.host() + ":" + m.port(), () -> m.kill(), () -> m.start(),
                        () -> m.close(), clock);
            }
            default:
                throw new IllegalArgumentException(String.format("--embedded must be one of %s but was '%s'",
                        String.join(", ", KINDS), kind));
        }
    }

    /**
     * The test fixture runs PostgreSQL with {@code synchronous_commit=off} for speed, which loses the last commits
     * when the server is killed (and with them granted tokens, which would then be handed out again). A user's server
     * commits durably by default; so does this one from now on (a role setting overrides the command line's).
     */
    private static void durableCommits(String jdbcUrl, String user) {
        try (Connection c = DriverManager.getConnection(jdbcUrl); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + user + " SET synchronous_commit = on");
        } catch (SQLException e) {
            throw new IllegalStateException("could not make the embedded PostgreSQL commit durably: " + e, e);
        }
    }

    /** {@code server}, which runs in {@code ns}, with the partition-server fault; closing it deletes {@code ns}. */
    private static ServerControl namespaced(ServerControl server, NetworkNamespace ns) {
        java.util.EnumSet<FaultKind> faults = java.util.EnumSet.of(FaultKind.PARTITION_SERVER);
        faults.addAll(server.serverFaults());
        return new ServerControl() {
            @Override
            public String backend() {
                return server.backend();
            }

            @Override
            public String uri() {
                return server.uri();
            }

            @Override
            public String description() {
                return server.description() + ", in network namespace " + ns.name() + " (veth link to the host)";
            }

            @Override
            public Set<FaultKind> serverFaults() {
                return faults;
            }

            @Override
            public boolean proxiable() {
                return server.proxiable();
            }

            @Override
            public void crash() {
                server.crash();
            }

            @Override
            public void restart() {
                server.restart();
            }

            @Override
            public void failover() {
                server.failover();
            }

            @Override
            public void jumpClock(Duration by) {
                server.jumpClock(by);
            }

            @Override
            public String whyNoClockJump() {
                return server.whyNoClockJump();
            }

            @Override
            public long serverObjects() {
                return server.serverObjects();
            }

            @Override
            public void partition() {
                ns.cut();
            }

            @Override
            public void heal() {
                ns.heal();
            }

            @Override
            public void close() {
                try {
                    if (ns.isCut()) {
                        ns.heal();
                    }
                    server.close();
                } finally {
                    ns.close();
                }
            }
        };
    }

    private static ServerControl redis(RedisServer server, String query) {
        return new Base("redis" + query, server.uri() + query, "redis-server at " + server.host() + ":" + server.port()
                + " (no persistence: a restart loses every key)", Set.of(FaultKind.SERVER_RESTART), true) {
            @Override
            public void crash() {
                server.kill();
            }

            @Override
            public void restart() {
                server.start();
            }

            @Override
            public long serverObjects() {
                return (Long) server.execute("DBSIZE");
            }

            @Override
            public void close() {
                server.close();
            }
        };
    }

    /** @param segment the network its six nodes run in (closed with it), or {@code null} for loopback */
    private static ServerControl cluster(RedisClusterSetup setup, NetworkSegment segment) {
        return new Base("redis-cluster", setup.uri(), "Redis Cluster of three masters with a replica each ("
                + setup.seeds() + ", asynchronous replication" + (segment == null ? ""
                : "; each node in a network namespace of its own on one bridge") + ")", segment == null
                ? Set.of(FaultKind.FAILOVER) : Set.of(FaultKind.FAILOVER, FaultKind.PARTITION_SERVER), false) {
            /**
             * Cuts every node off from the host (every worker and the verifier) with blackhole routes; the nodes keep
             * seeing each other, so the cluster does not fail over: it is just gone for the workers.
             */
            @Override
            public void partition() {
                for (int i = 0; i < segment.members(); i++) {
                    segment.block(i, NetworkSegment.HOST);
                }
            }

            @Override
            public void heal() {
                segment.unblockAll();
            }

            @Override
            public void failover() {
                // the master of the lock's slot: the one with the keys
                setup.failOver(setup.busiestMaster());
            }

            /** The keys of every node that answers as a master. */
            @Override
            public long serverObjects() {
                long keys = 0;
                for (int i = 0; i < setup.ports().size(); i++) {
                    try {
                        Object role = setup.execute(i, "ROLE");
                        if (role instanceof List<?> r && !r.isEmpty() && "master".equals(String.valueOf(r.get(0)))) {
                            keys += (Long) setup.execute(i, "DBSIZE");
                        }
                    } catch (RuntimeException down) {
                        // a node the run killed and has not started again keeps nothing
                    }
                }
                return keys;
            }

            @Override
            public void close() {
                try {
                    setup.close();
                } finally {
                    if (segment != null) {
                        segment.close();
                    }
                }
            }
        };
    }

    /** The processes of a Sentinel deployment: master, replica, three sentinels (segment members 0 to 4). */
    static final int SENTINEL_PROCESSES = 5;

    /**
     * @param segment the network its five processes run in (closed with it), or {@code null} for loopback; its
     *        member {@value #SENTINEL_PROCESSES} is where the worker that stays with the master in a split brain runs
     * @param query Redis URI options for the workers ({@code ?replicaAcks=1}), or {@code ""}
     */
    private static ServerControl sentinel(RedisSentinelSetup setup, NetworkSegment segment, String query) {
        return new Base("redis-sentinel" + query, setup.uri() + query, "Redis master, replica and three sentinels "
                + "(master " + setup.masterPort() + ", asynchronous replication" + (query.isEmpty() ? ""
                : ", workers with " + query.substring(1)) + (segment == null ? ""
                : "; each in a network namespace of its own on one bridge") + ")", segment == null
                ? Set.of(FaultKind.FAILOVER)
                : Set.of(FaultKind.FAILOVER, FaultKind.PARTITION_SERVER, FaultKind.SPLIT_BRAIN), false) {
            @Override
            public void failover() {
                setup.failover();
            }

            @Override
            public long serverObjects() {
                return (Long) setup.master("DBSIZE");
            }

            /** Cuts all five processes off (each one's link down). */
            @Override
            public void partition() {
                for (int i = 0; i < SENTINEL_PROCESSES; i++) {
                    segment.cut(i);
                }
            }

            /**
             * The master keeps only the worker of member {@value #SENTINEL_PROCESSES}, which keeps only the master
             * and the host (where the register is): blackhole routes between the master and the replica, each
             * sentinel and the host, and between that worker and the replica and each sentinel.
             */
            @Override
            public void splitBrain() {
                int master = setup.masterMember();
                int worker = SENTINEL_PROCESSES;
                segment.block(master, setup.replicaMember());
                segment.block(master, NetworkSegment.HOST);
                segment.block(worker, setup.replicaMember());
                for (int s : setup.sentinelMembers()) {
                    segment.block(master, s);
                    segment.block(worker, s);
                }
                setup.awaitFailoverOfIsolatedMaster();
            }

            @Override
            public List<String> onMasterSide(List<String> command) {
                return segment == null ? null : segment.wrap(SENTINEL_PROCESSES, command);
            }

            @Override
            public String hostAddress() {
                return segment == null ? null : segment.hostAddress();
            }

            @Override
            public void heal() {
                for (int i = 0; i < SENTINEL_PROCESSES; i++) {
                    if (segment.isCut(i)) {
                        segment.heal(i);
                    }
                }
                if (segment.isBlocked()) {
                    segment.unblockAll();
                    setup.awaitRejoined();
                }
            }

            @Override
            public void close() {
                try {
                    setup.close();
                } finally {
                    if (segment != null) {
                        segment.close();
                    }
                }
            }
        };
    }

    private static ServerControl etcd(EtcdServer server) {
        return new Base("etcd", server.uri(), "etcd at " + server.host() + ":" + server.port()
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

    /** Starts {@code server}, under a fake clock if libfaketime is installed; returns that clock or {@code null}. */
    private static FakeClock startOnFakeClock(SqlServerProcess server) {
        boolean movable = FakeClock.library().isPresent();
        if (movable) {
            server.withFakeClock();
        }
        server.start();
        return movable ? server.clock() : null;
    }

    /** @param clock the server's clock if the verifier can move it, else {@code null} */
    private static ServerControl sql(String name, String jdbcUrl, String address, Runnable kill, Runnable start,
                                     Runnable close, FakeClock clock) {
        return new Base(name, jdbcUrl, name + " at " + address + " (data kept across restarts"
                + (clock == null ? "" : "; wall clock under libfaketime") + ")", clock == null
                ? Set.of(FaultKind.SERVER_RESTART) : Set.of(FaultKind.SERVER_RESTART, FaultKind.CLOCK_JUMP), true) {
            @Override
            public void crash() {
                kill.run();
            }

            @Override
            public void jumpClock(Duration by) {
                if (clock == null) {
                    super.jumpClock(by);
                }
                clock.jump(by);
            }

            @Override
            public String whyNoClockJump() {
                return "libfaketime is not installed: " + FakeClock.INSTALL_HINT;
            }

            @Override
            public void restart() {
                start.run();
            }

            @Override
            public void close() {
                close.run();
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
        return new Base("zookeeper", "zookeeper://" + host + ":" + port, "ZooKeeper at " + host + ":" + port
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

    abstract static class Base implements ServerControl {
        private final String backend;
        private final String uri;
        private final String description;
        private final Set<FaultKind> faults;
        private final boolean proxiable;

        Base(String backend, String uri, String description, Set<FaultKind> faults, boolean proxiable) {
            this.backend = backend;
            this.uri = uri;
            this.description = "embedded " + description;
            this.faults = faults;
            this.proxiable = proxiable;
        }

        @Override
        public String backend() {
            return backend;
        }

        @Override
        public String uri() {
            return uri;
        }

        @Override
        public String description() {
            return description;
        }

        @Override
        public Set<FaultKind> serverFaults() {
            return faults;
        }

        @Override
        public boolean proxiable() {
            return proxiable;
        }

        /** Rows of the lease table, etcd keys or ZooKeeper znodes; the Redis kinds count their keys themselves. */
        @Override
        public long serverObjects() {
            if (backend.startsWith("etcd")) {
                return ServerObjects.etcdKeys(uri);
            }
            if (backend.startsWith("zookeeper")) {
                return ServerObjects.zooKeeperNodes(uri);
            }
            if (backend.startsWith("postgresql") || backend.equals("mariadb")) {
                return ServerObjects.sqlRows(uri);
            }
            return -1;
        }
    }
}
