package io.latchkey.cli.faults;

import io.latchkey.testing.NetworkSegment;
import io.latchkey.testing.TestFiles;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What the embedded clusters of three members (etcd, ZooKeeper) share: finding the leader, the partition faults on
 * their {@link NetworkSegment} (member {@code i} in namespace {@code i}, or no segment without the partition faults;
 * namespace {@value #SIZE} is where the worker runs that stays with the leader when it is isolated), and closing
 * (members killed, data directory deleted, segment closed).
 */
abstract class MemberCluster extends EmbeddedServerControl {

    static final int SIZE = 3;

    private final String cluster;
    private final String aLeader;
    private final Path dir;
    private final NetworkSegment segment;

    /**
     * @param cluster the cluster in error messages ("the etcd cluster")
     * @param aLeader its leader in error messages ("an etcd leader")
     */
    MemberCluster(String backend, String uri, String description, String cluster, String aLeader, Path dir,
                  NetworkSegment segment) {
        super(backend, uri, description, segment == null ? Set.of(FaultKind.FAILOVER)
                : Set.of(FaultKind.FAILOVER, FaultKind.PARTITION_LEADER, FaultKind.PARTITION_SERVER), true);
        this.cluster = cluster;
        this.aLeader = aLeader;
        this.dir = dir;
        this.segment = segment;
    }

    /** Whether member {@code i}'s process runs. */
    abstract boolean isAlive(int i);

    /** Whether member {@code i} answers that it leads (false when it does not answer). */
    abstract boolean leads(int i);

    /** Kills member {@code i}'s process (SIGKILL). */
    abstract void kill(int i);

    /** Cuts every member off (each one's link down); the leader-side worker keeps its link (to nobody). */
    @Override
    public void partition() {
        for (int i = 0; i < SIZE; i++) {
            segment.cut(i);
        }
    }

    /**
     * Cuts the leader off from the other members and every worker but the one of namespace {@value #SIZE}, which
     * keeps only the leader and the host (where the register is): blackhole routes between the sides. Returns once
     * the other two elected a leader.
     */
    @Override
    public void isolateLeader() {
        int leader = awaitLeader(-1);
        segment.block(leader, NetworkSegment.HOST);
        for (int i = 0; i < SIZE; i++) {
            if (i != leader) {
                segment.block(leader, i);
                segment.block(SIZE, i);
            }
        }
        awaitLeader(leader);
    }

    @Override
    public List<String> onMasterSide(List<String> command) {
        return segment == null ? null : segment.wrap(SIZE, command);
    }

    @Override
    public String hostAddress() {
        return segment == null ? null : segment.hostAddress();
    }

    @Override
    public void heal() {
        for (int i = 0; i < SIZE; i++) {
            if (segment.isCut(i)) {
                segment.heal(i);
            }
        }
        segment.unblockAll();
    }

    /** The index of the member that leads, as the members other than {@code excluded} see it. */
    final int awaitLeader(int excluded) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() - deadline < 0) {
            for (int i = 0; i < SIZE; i++) {
                if (i != excluded && isAlive(i) && (segment == null || !segment.isCut(i)) && leads(i)) {
                    return i;
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + aLeader, e);
            }
        }
        throw new IllegalStateException(cluster + " elected no leader within 60s");
    }

    @Override
    public void close() {
        try {
            for (int i = 0; i < SIZE; i++) {
                kill(i);
            }
            TestFiles.deleteRecursively(dir);
        } finally {
            if (segment != null) {
                segment.close();
            }
        }
    }
}
