package io.latchkey.cli.faults;

import io.latchkey.testing.NetworkSegment;
import io.latchkey.testing.RedisClusterSetup;
import io.latchkey.testing.RedisSentinelSetup;
import io.latchkey.testing.RedisServer;
import java.util.List;
import java.util.Set;

/**
 * The Redis deployments of {@code verify --faults --embedded}: redis-server alone (crashed and restarted without
 * persistence), a master with a replica and three sentinels (failed over, partitioned, split), and a cluster of three
 * masters with a replica each (the lock's slot master failed over, every node cut off from the workers).
 */
final class RedisControls {

    /** The processes of a Sentinel deployment: master, replica, three sentinels (segment members 0 to 4). */
    static final int SENTINEL_PROCESSES = 5;

    private RedisControls() {
    }

    static ServerControl redis(RedisServer server, String query) {
        return new EmbeddedServerControl("redis" + query, server.uri() + query, "redis-server at " + server.host() + ":" + server.port()
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
    static ServerControl cluster(RedisClusterSetup setup, NetworkSegment segment) {
        return new EmbeddedServerControl("redis-cluster", setup.uri(), "Redis Cluster of three masters with a replica each ("
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

    /**
     * @param segment the network its five processes run in (closed with it), or {@code null} for loopback; its
     *        member {@value #SENTINEL_PROCESSES} is where the worker that stays with the master in a split brain runs
     * @param query Redis URI options for the workers ({@code ?replicaAcks=1}), or {@code ""}
     */
    static ServerControl sentinel(RedisSentinelSetup setup, NetworkSegment segment, String query) {
        return new EmbeddedServerControl("redis-sentinel" + query, setup.uri() + query, "Redis master, replica and three sentinels "
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
}
