package io.latchkey.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * A local Redis Sentinel deployment for tests: one master, one replica ({@code replicaof}) and three sentinels
 * ({@code redis-server <conf> --sentinel}, the same Debian binary), each on a free port of 127.0.0.1 in its own
 * temporary directory, without persistence. The sentinels monitor {@link #MASTER_NAME} with quorum 2 and mark a node
 * down after a silence of {@code downAfter} (default 5 s, long enough that a loaded test machine never fails over
 * by accident; failover tests pass about 2 s), so a {@link #failover()} finishes a few seconds after that.
 *
 * <p>{@link #start()} returns once the replica is in sync and every sentinel sees the master, the replica and the
 * two other sentinels. A missing {@code redis-server} (or {@code valkey-server}, {@link RedisBinary}) fails with
 * its install command. Not thread-safe: drive it from one thread.
 */
public final class RedisSentinelSetup implements AutoCloseable {

    /** The master name the sentinels monitor. */
    public static final String MASTER_NAME = "latchkey";
    private static final Duration DEFAULT_DOWN_AFTER = Duration.ofSeconds(5);
    private static final long FAILOVER_TIMEOUT_MILLIS = 4000;
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final List<SentinelNode> sentinels = new ArrayList<>();
    private Path binary;
    private SentinelNode master;
    private SentinelNode replica;
    private boolean replicaFrozen;
    private final long downAfterMillis;
    private NetworkSegment segment;

    /** An unstarted setup whose sentinels wait 5 s before they consider a node down; call {@link #start()}. */
    public RedisSentinelSetup() {
        this(DEFAULT_DOWN_AFTER);
    }

    /**
     * An unstarted setup whose sentinels consider a node down after {@code downAfter} without a valid reply (the
     * bulk of a failover's duration); call {@link #start()}.
     *
     * @throws IllegalArgumentException if shorter than 100 ms
     */
    public RedisSentinelSetup(Duration downAfter) {
        if (downAfter.toMillis() < 100) {
            throw new IllegalArgumentException(String.format("downAfter must be at least 100ms but was %s",
                    downAfter));
        }
        this.downAfterMillis = downAfter.toMillis();
    }

    /**
     * Runs each of the five processes in a network namespace of its own on {@code segment} (master 0, replica 1,
     * sentinels 2 to 4), listening on its member address, so that links can be cut. Call before {@link #start()}; the
     * caller closes the segment after this setup.
     *
     * @throws IllegalArgumentException if the segment has fewer than five members
     */
    public RedisSentinelSetup inNetwork(NetworkSegment segment) {
        if (segment.members() < 5) {
            throw new IllegalArgumentException("a Sentinel deployment needs five members but the segment has "
                    + segment.members());
        }
        if (master != null) {
            throw new IllegalStateException("inNetwork must come before start()");
        }
        this.segment = segment;
        return this;
    }

    /**
     * Starts the five processes and waits until the deployment is ready (see the class comment).
     *
     * @throws IllegalStateException if {@code redis-server} is missing (naming the install command), a process
     *         does not start, or the deployment is not ready within a minute
     */
    public RedisSentinelSetup start() {
        if (master != null) {
            return this;
        }
        binary = RedisBinary.configured().require();
        try {
            master = new SentinelNode("redis-master", 0, binary, segment);
            master.startData(null);
            replica = new SentinelNode("redis-replica", 1, binary, segment);
            replica.startData(master);
            awaitInSync();
            for (int i = 0; i < 3; i++) {
                SentinelNode sentinel = new SentinelNode("redis-sentinel", 2 + i, binary, segment);
                sentinel.startSentinel(master, downAfterMillis, FAILOVER_TIMEOUT_MILLIS);
                sentinels.add(sentinel);
            }
            awaitSentinelsSee(master, replica);
            return this;
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * {@code redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/latchkey}: the sentinels and the master name,
     * as Latchkey's {@code LockClient.connect} takes it.
     */
    public String uri() {
        return "redis-sentinel://" + sentinelAddresses() + "/" + MASTER_NAME;
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}. */
    public String sentinelAddresses() {
        return sentinels.stream().map(n -> n.host + ":" + n.port).collect(Collectors.joining(","));
    }

    /** The sentinels' ports. */
    public List<Integer> sentinelPorts() {
        return sentinels.stream().map(n -> n.port).collect(Collectors.toList());
    }

    /** {@code redis://127.0.0.1:port} of the current master. */
    public String masterUri() {
        return "redis://" + master.host + ":" + master.port;
    }

    /** The current master's port. */
    public int masterPort() {
        return master.port;
    }

    /** The current replica's port. */
    public int replicaPort() {
        return replica.port;
    }

    /** Runs one command on the current master (see {@link RedisServer#execute}). */
    public Object master(String... command) {
        return master.execute(command);
    }

    /** Runs one command on the current replica (see {@link RedisServer#execute}). */
    public Object replica(String... command) {
        return replica.execute(command);
    }

    /**
     * Cuts the replica off: stops its process (SIGSTOP) and closes its replication link on the master, so writes
     * from now on exist on the master only, and a {@code WAIT} for one replica times out. {@link #thawReplica()}
     * or {@link #failover()} undoes it.
     */
    public void freezeReplica() {
        if (replicaFrozen) {
            return;
        }
        SentinelNode.signal(replica, "-STOP");
        replicaFrozen = true;
        master.execute("CLIENT", "KILL", "TYPE", "replica");
        // The master must see the link gone before the caller writes, or it would still stream to the socket.
        await("the master to drop its replica", READY_TIMEOUT,
                () -> master.info("replication").contains("connected_slaves:0"));
    }

    /** Resumes a {@linkplain #freezeReplica() frozen} replica and waits until it is in sync again. */
    public void thawReplica() {
        if (!replicaFrozen) {
            return;
        }
        SentinelNode.signal(replica, "-CONT");
        replicaFrozen = false;
        awaitInSync();
    }

    /**
     * Crashes the master (SIGKILL), waits until every sentinel names the replica as the master and it accepts
     * writes, then restarts the old master (empty) as the new master's replica and waits until it is in sync and
     * the sentinels see it. A frozen replica is resumed right after the kill: what it had not received is lost,
     * as in a real failover.
     *
     * @throws IllegalStateException if the failover does not complete within a minute
     */
    public void failover() {
        SentinelNode old = master;
        SentinelNode promoted = replica;
        old.process.kill();
        if (replicaFrozen) {
            SentinelNode.signal(promoted, "-CONT");
            replicaFrozen = false;
        }
        awaitPromoted(promoted);
        master = promoted;
        replica = old;
        old.startData(promoted);
        awaitInSync();
        awaitSentinelsSee(master, replica);
    }

    /** The segment member that runs the current master (with {@link #inNetwork(NetworkSegment)}). */
    public int masterMember() {
        return master.index;
    }

    /** The segment member that runs the current replica. */
    public int replicaMember() {
        return replica.index;
    }

    /** The segment members that run the sentinels. */
    public List<Integer> sentinelMembers() {
        return sentinels.stream().map(n -> n.index).collect(Collectors.toList());
    }

    /**
     * After the caller cut the master off from the replica and the sentinels (it keeps running, and keeps whatever
     * clients still reach it: a split brain): waits until every sentinel names the replica as the master and it
     * accepts writes. From then on {@link #masterPort()} is the promoted replica's; the old master is the replica
     * (it still believes it is a master until {@link #awaitRejoined()}).
     *
     * @throws IllegalStateException if the sentinels do not fail over within a minute
     */
    public void awaitFailoverOfIsolatedMaster() {
        SentinelNode old = master;
        SentinelNode promoted = replica;
        awaitPromoted(promoted);
        master = promoted;
        replica = old;
    }

    /**
     * After the caller healed a split brain: waits until the sentinels have turned the old master into a replica of
     * the promoted one (dropping what it accepted meanwhile), it is in sync, and every sentinel sees it.
     *
     * @throws IllegalStateException if that does not happen within a minute
     */
    public void awaitRejoined() {
        SentinelNode m = master;
        SentinelNode r = replica;
        await("the old master on port " + r.port + " to become a replica of the master on port " + m.port,
                READY_TIMEOUT, () -> {
                    Object role = r.tryExecute("ROLE");
                    return role instanceof List && "slave".equals(((List<?>) role).get(0))
                            && String.valueOf(m.port).equals(String.valueOf(((List<?>) role).get(2)));
                });
        awaitInSync();
        awaitSentinelsSee(m, r);
    }

    private void awaitPromoted(SentinelNode promoted) {
        await("the sentinels to promote the replica on port " + promoted.port, READY_TIMEOUT, () -> {
            for (SentinelNode s : sentinels) {
                Object addr = s.tryExecute("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME);
                if (!(addr instanceof List) || !String.valueOf(promoted.port).equals(((List<?>) addr).get(1))) {
                    return false;
                }
            }
            Object role = promoted.tryExecute("ROLE");
            // A promoted replica accepts writes as soon as it reports the master role.
            return role instanceof List && "master".equals(((List<?>) role).get(0));
        });
    }

    private void awaitInSync() {
        SentinelNode m = master;
        SentinelNode r = replica;
        await("the replica on port " + r.port + " to sync with the master on port " + m.port, READY_TIMEOUT,
                () -> {
                    String info = r.info("replication");
                    return info.contains("master_link_status:up")
                            && info.contains("master_port:" + m.port)
                            && m.info("replication").contains("port=" + r.port + ",state=online");
                });
    }

    private void awaitSentinelsSee(SentinelNode m, SentinelNode r) {
        await("the sentinels to see the master on port " + m.port + ", its replica and each other", READY_TIMEOUT,
                () -> {
                    for (SentinelNode s : sentinels) {
                        Object reply = s.tryExecute("SENTINEL", "MASTER", MASTER_NAME);
                        if (!(reply instanceof List)) {
                            return false;
                        }
                        List<?> fields = (List<?>) reply;
                        if (!String.valueOf(m.port).equals(field(fields, "port"))
                                || !"master".equals(field(fields, "flags"))
                                || !"2".equals(field(fields, "num-other-sentinels"))) {
                            return false;
                        }
                        Object replicas = s.tryExecute("SENTINEL", "REPLICAS", MASTER_NAME);
                        if (!(replicas instanceof List) || !seesHealthyReplica((List<?>) replicas, r.port)) {
                            return false;
                        }
                    }
                    return true;
                });
    }

    private static boolean seesHealthyReplica(List<?> replicas, int port) {
        for (Object entry : replicas) {
            List<?> fields = (List<?>) entry;
            if (String.valueOf(port).equals(field(fields, "port")) && "slave".equals(field(fields, "flags"))
                    && "ok".equals(field(fields, "master-link-status"))) {
                return true;
            }
        }
        return false;
    }

    private static String field(List<?> flat, String name) {
        for (int i = 0; i + 1 < flat.size(); i += 2) {
            if (name.equals(flat.get(i))) {
                return String.valueOf(flat.get(i + 1));
            }
        }
        return null;
    }

    /** The install command named when {@code kill} (to freeze a replica with SIGSTOP) is missing. */
    static final String KILL_INSTALL_HINT = "sudo apt-get install procps";

    private void await(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(String.format("timed out after %s waiting for %s; %s", timeout,
                        what, describe()));
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what, e);
            }
        }
    }

    /** Each process's recent output, for failure messages. */
    private String describe() {
        StringBuilder sb = new StringBuilder();
        List<SentinelNode> all = new ArrayList<>();
        if (master != null) {
            all.add(master);
        }
        if (replica != null) {
            all.add(replica);
        }
        all.addAll(sentinels);
        for (SentinelNode n : all) {
            String out = n.process == null ? "" : n.process.recentOutput();
            String[] lines = out.split("\\R");
            int from = Math.max(0, lines.length - 15);
            sb.append(System.lineSeparator()).append("--- ").append(n).append(':');
            for (int i = from; i < lines.length; i++) {
                sb.append(System.lineSeparator()).append(lines[i]);
            }
        }
        return sb.toString();
    }

    /** Stops every process (a frozen one too) and deletes their directories. Idempotent. */
    @Override
    public void close() {
        List<SentinelNode> all = new ArrayList<>(sentinels);
        if (replica != null) {
            all.add(replica);
        }
        if (master != null) {
            all.add(master);
        }
        for (SentinelNode n : all) {
            n.close();
        }
        sentinels.clear();
        master = null;
        replica = null;
        replicaFrozen = false;
    }

    @Override
    public String toString() {
        return "RedisSentinelSetup{master " + (master == null ? "-" : master.host + ":" + master.port) + ", replica "
                + (replica == null ? "-" : replica.host + ":" + replica.port) + ", sentinels "
                + (sentinels.isEmpty() ? "-" : sentinelAddresses()) + "}";
    }

}
