package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A real three-master Redis Cluster on 127.0.0.1: three {@code redis-server} child processes with
 * {@code cluster-enabled yes}, each on a free port in its own temporary directory (own {@code nodes.conf}, no
 * persistence), the 16384 slots split evenly, joined by {@code CLUSTER MEET}. {@link #start()} returns once every
 * node reports {@code cluster_state:ok} and sees all three masters with their slots, so a client's first topology
 * refresh finds the whole cluster. No replicas by default (tests of topology); {@link #startWithReplicas()} adds one
 * replica per master and a short node timeout, for {@link #failOver(int)}.
 *
 * <p>Set up over the protocol ({@code CLUSTER SET-CONFIG-EPOCH}, {@code ADDSLOTSRANGE}, {@code MEET}), so only
 * {@code redis-server} 7.0 or later (or {@code valkey-server}, {@link RedisBinary}) is needed. A missing binary
 * fails with its install command.
 *
 * <pre>{@code
 * static RedisClusterSetup cluster;
 * @BeforeAll static void up() { cluster = RedisClusterSetup.start(); }
 * @AfterAll static void down() { cluster.close(); }
 * ... LockClient.connect(cluster.uri()) ...
 * }</pre>
 *
 * <p>Not thread-safe for start and close; {@link #execute} may be called from any thread.
 */
public final class RedisClusterSetup implements AutoCloseable {

    /** Masters in the cluster. */
    public static final int MASTERS = 3;
    /** Slots of a Redis Cluster. */
    public static final int SLOTS = 16384;

    private static final String HOST = "127.0.0.1";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration CONVERGE_TIMEOUT = Duration.ofSeconds(30);

    /** Nodes 0-2 start as the masters (in slot order), 3-5 as their replicas (with {@link #startWithReplicas()}). */
    private final List<Node> nodes = new ArrayList<>();
    private final boolean replicas;
    /** Slots moved by {@link #migrateSlot}, to their master's index. */
    private final Map<Integer, Integer> moved = new ConcurrentHashMap<>();

    private RedisClusterSetup(boolean replicas) {
        this.replicas = replicas;
    }

    /**
     * Starts the three masters, assigns the slots, joins them and waits until the cluster is ok on every node.
     *
     * @throws IllegalStateException if {@code redis-server} is missing (naming the install command), a node does
     *         not start, or the cluster does not converge within 30 s (with each node's {@code CLUSTER INFO})
     */
    public static RedisClusterSetup start() {
        return start(RedisBinary.configured().binary());
    }

    /** {@link #start()} with another binary name, so that a test can see what a missing binary does. */
    static RedisClusterSetup start(String binaryName) {
        return start(binaryName, false, null);
    }

    /**
     * {@link #start()} plus one replica per master (asynchronous replication, as Redis Cluster always is) and a
     * node timeout of {@value #FAILOVER_NODE_TIMEOUT_MILLIS} ms, so that a killed master's replica takes over within
     * seconds ({@link #failOver(int)}). Returns once every replica's link to its master is up.
     */
    public static RedisClusterSetup startWithReplicas() {
        return start(RedisBinary.configured().binary(), true, null);
    }

    /**
     * {@link #startWithReplicas()} with node {@code i} in member {@code i}'s network namespace of {@code segment}
     * (listening on its address), so that the nodes can be cut off from the host while they still see each other.
     * The caller closes the segment after this setup.
     *
     * @throws IllegalArgumentException if the segment has fewer than six members
     */
    public static RedisClusterSetup startWithReplicas(NetworkSegment segment) {
        if (segment.members() < 2 * MASTERS) {
            throw new IllegalArgumentException("a Redis Cluster with replicas needs " + 2 * MASTERS
                    + " members but the segment has " + segment.members());
        }
        return start(RedisBinary.configured().binary(), true, segment);
    }

    /** How long a master may be unreachable before its replica is promoted, with replicas. */
    static final int FAILOVER_NODE_TIMEOUT_MILLIS = 3000;

    private static RedisClusterSetup start(String binaryName, boolean replicas, NetworkSegment segment) {
        Path binary = ServerProcess.requireBinary(binaryName, binaryName.equals(RedisBinary.VALKEY.binary())
                ? RedisBinary.VALKEY.installHint() : RedisServer.INSTALL_HINT);
        RedisClusterSetup setup = new RedisClusterSetup(replicas);
        try {
            for (int i = 0; i < (replicas ? 2 * MASTERS : MASTERS); i++) {
                setup.nodes.add(Node.start(binary, i, replicas, segment));
            }
            setup.form();
            if (replicas) {
                setup.attachReplicas();
            }
            return setup;
        } catch (RuntimeException e) {
            setup.close();
            throw e;
        }
    }

    private void form() {
        for (int i = 0; i < MASTERS; i++) {
            Node n = nodes.get(i);
            // Distinct epochs up front, as redis-cli --cluster create does: no epoch collisions to resolve.
            n.execute("CLUSTER", "SET-CONFIG-EPOCH", Integer.toString(i + 1));
            int from = i * SLOTS / MASTERS;
            int to = (i + 1) * SLOTS / MASTERS - 1;
            n.execute("CLUSTER", "ADDSLOTSRANGE", Integer.toString(from), Integer.toString(to));
        }
        for (int i = 1; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            nodes.get(0).execute("CLUSTER", "MEET", n.host, Integer.toString(n.port), Integer.toString(n.busPort));
        }
        long deadline = System.nanoTime() + CONVERGE_TIMEOUT.toNanos();
        while (!converged()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the Redis Cluster did not converge within " + CONVERGE_TIMEOUT
                        + ":\n" + nodes.stream().map(n -> n + ": " + n.tryExecute("CLUSTER", "INFO"))
                        .collect(Collectors.joining("\n")));
            }
            sleep(50);
        }
    }

    private boolean converged() {
        for (Node n : nodes) {
            String info = String.valueOf(n.tryExecute("CLUSTER", "INFO"));
            if (!info.contains("cluster_state:ok") || !info.contains("cluster_known_nodes:" + nodes.size())
                    || !info.contains("cluster_slots_ok:" + SLOTS) || !info.contains("cluster_size:" + MASTERS)) {
                return false;
            }
        }
        return true;
    }

    /** {@code redis-cluster://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}: every master as a seed. */
    public String uri() {
        return "redis-cluster://" + seeds();
    }

    /** {@code 127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3}. */
    public String seeds() {
        return nodes.stream().map(n -> n.host + ":" + n.port).collect(Collectors.joining(","));
    }

    /** The masters' ports, in slot order (the first serves slots 0-5460). */
    public List<Integer> ports() {
        return nodes.stream().map(n -> n.port).collect(Collectors.toUnmodifiableList());
    }

    /** The index (0-2) of the master serving {@code slot} (after any {@link #migrateSlot}). */
    public int masterOfSlot(int slot) {
        if (slot < 0 || slot >= SLOTS) {
            throw new IllegalArgumentException("slot must be in [0, 16383] but was " + slot);
        }
        Integer migrated = moved.get(slot);
        if (migrated != null) {
            return migrated;
        }
        for (int i = 0; i < MASTERS; i++) {
            if (slot <= (i + 1) * SLOTS / MASTERS - 1) {
                return i;
            }
        }
        return MASTERS - 1;
    }

    /**
     * Moves {@code slot} with its keys to master {@code to} while clients run, as {@code redis-cli --cluster
     * reshard} does: IMPORTING on the target, MIGRATING on the source, MIGRATE of the keys in batches (clients meet
     * ASK meanwhile), then SETSLOT NODE on the target, the source and the others (clients meet MOVED after).
     */
    @SuppressWarnings("unchecked")
    public void migrateSlot(int slot, int to) {
        int from = masterOfSlot(slot);
        if (from == to) {
            return;
        }
        Node source = nodes.get(from);
        Node target = nodes.get(to);
        String sourceId = (String) source.execute("CLUSTER", "MYID");
        String targetId = (String) target.execute("CLUSTER", "MYID");
        String s = Integer.toString(slot);
        target.execute("CLUSTER", "SETSLOT", s, "IMPORTING", sourceId);
        source.execute("CLUSTER", "SETSLOT", s, "MIGRATING", targetId);
        while (true) {
            List<Object> keys = (List<Object>) source.execute("CLUSTER", "GETKEYSINSLOT", s, "100");
            if (keys.isEmpty()) {
                break;
            }
            List<String> migrate = new ArrayList<>(List.of("MIGRATE", target.host, Integer.toString(target.port), "", "0",
                    "5000", "KEYS"));
            keys.forEach(k -> migrate.add((String) k));
            source.execute(migrate.toArray(new String[0]));
        }
        target.execute("CLUSTER", "SETSLOT", s, "NODE", targetId);
        source.execute("CLUSTER", "SETSLOT", s, "NODE", targetId);
        for (int i = 0; i < nodes.size(); i++) {
            if (i != from && i != to) {
                nodes.get(i).execute("CLUSTER", "SETSLOT", s, "NODE", targetId);
            }
        }
        moved.put(slot, to);
    }

    private void attachReplicas() {
        for (int i = 0; i < MASTERS; i++) {
            String masterId = (String) nodes.get(i).execute("CLUSTER", "MYID");
            Node replica = nodes.get(MASTERS + i);
            // The replica must know the master's id first (gossip after MEET): retry until it does.
            long deadline = System.nanoTime() + CONVERGE_TIMEOUT.toNanos();
            while (true) {
                try {
                    replica.execute("CLUSTER", "REPLICATE", masterId);
                    break;
                } catch (RuntimeException e) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException("node " + replica + " could not replicate " + nodes.get(i), e);
                    }
                    sleep(100);
                }
            }
        }
        long deadline = System.nanoTime() + CONVERGE_TIMEOUT.toNanos();
        for (int i = 0; i < MASTERS; i++) {
            Node replica = nodes.get(MASTERS + i);
            while (!String.valueOf(replica.tryExecute("INFO", "replication")).contains("master_link_status:up")) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the replica " + replica + " did not sync within "
                            + CONVERGE_TIMEOUT + ": " + replica.tryExecute("INFO", "replication"));
                }
                sleep(50);
            }
        }
    }

    /**
     * The index of the live master that holds the most keys (with a test's one lock name: the master of its slot).
     *
     * @throws IllegalStateException if no master is alive
     */
    public int busiestMaster() {
        int best = -1;
        long most = -1;
        for (int i = 0; i < nodes.size(); i++) {
            Node n = nodes.get(i);
            if (!n.process.isAlive() || !String.valueOf(n.tryExecute("INFO", "replication")).contains("role:master")) {
                continue;
            }
            Object size = n.tryExecute("DBSIZE");
            long keys = size instanceof Long l ? l : -1;
            if (keys > most) {
                most = keys;
                best = i;
            }
        }
        if (best < 0) {
            throw new IllegalStateException("no live master in " + this);
        }
        return best;
    }

    /**
     * {@code kill -9} node {@code index} (a master), waits until the cluster has promoted its replica and serves every
     * slot again (as the other nodes see it), then starts the killed node again on its port and {@code nodes.conf}:
     * it rejoins as a replica of the new master. Writes the old master acknowledged but had not yet replicated are
     * lost, as in any Redis Cluster failover.
     *
     * @throws IllegalStateException without replicas ({@link #startWithReplicas()}), or if the cluster does not
     *         recover within 60 s
     */
    public void failOver(int index) {
        if (!replicas) {
            throw new IllegalStateException("a cluster without replicas cannot fail over; use startWithReplicas()");
        }
        Node dead = nodes.get(index);
        String deadId = (String) dead.execute("CLUSTER", "MYID");
        dead.process.kill();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!servedWithout(deadId, dead)) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the Redis Cluster did not fail over from " + dead + " within 60 s:\n"
                        + nodes.stream().filter(n -> n != dead).map(n -> n + ": " + n.tryExecute("CLUSTER", "INFO"))
                        .collect(Collectors.joining("\n")));
            }
            sleep(100);
        }
        dead.process.start(dead::answersPing, START_TIMEOUT);
        while (!String.valueOf(dead.tryExecute("INFO", "replication")).contains("master_link_status:up")) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the old master " + dead + " did not rejoin as a replica within "
                        + "60 s: " + dead.tryExecute("INFO", "replication"));
            }
            sleep(100);
        }
    }

    /** Whether every live node other than {@code dead} reports the cluster ok, all slots served by other nodes. */
    private boolean servedWithout(String deadId, Node dead) {
        for (Node n : nodes) {
            if (n == dead || !n.process.isAlive()) {
                continue;
            }
            String info = String.valueOf(n.tryExecute("CLUSTER", "INFO"));
            if (!info.contains("cluster_state:ok") || !info.contains("cluster_slots_ok:" + SLOTS)) {
                return false;
            }
            for (String line : String.valueOf(n.tryExecute("CLUSTER", "NODES")).split("\n")) {
                // "<id> <addr> <flags> <master> ... <slot ranges>": the dead node must serve no slot any more
                String[] f = line.trim().split(" ");
                if (f.length > 8 && f[0].equals(deadId)) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * Runs one command on master {@code index} (0-2) over a fresh connection: a {@code String}, {@code Long},
     * {@code List} or {@code null}. Keyed commands must target the master of the key's slot.
     *
     * @throws IllegalStateException for an error reply (such as {@code MOVED})
     */
    public Object execute(int index, String... command) {
        return nodes.get(index).execute(command);
    }

    /** Deletes every key on every master. */
    public void flushAll() {
        for (Node n : nodes) {
            n.execute("FLUSHALL");
        }
    }

    /** The masters' directories (config, {@code nodes.conf}), in slot order. */
    List<Path> directories() {
        return nodes.stream().map(n -> n.dir).collect(Collectors.toUnmodifiableList());
    }

    /** Stops every node and deletes their directories. Idempotent. */
    @Override
    public void close() {
        for (Node n : nodes) {
            n.close();
        }
        nodes.clear();
    }

    @Override
    public String toString() {
        return "RedisClusterSetup{" + seeds() + "}";
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while forming the Redis Cluster", e);
        }
    }

    /** One cluster-enabled redis-server. */
    private static final class Node {
        final Path dir;
        final String host;
        final int port;
        final int busPort;
        final ServerProcess process;

        private Node(Path dir, String host, int port, int busPort, ServerProcess process) {
            this.dir = dir;
            this.host = host;
            this.port = port;
            this.busPort = busPort;
            this.process = process;
        }

        /** @param segment the network whose member {@code index} runs the node, or {@code null} for 127.0.0.1 */
        static Node start(Path binary, int index, boolean replicas, NetworkSegment segment) {
            String host = segment == null ? HOST : segment.address(index);
            Path dir = TestFiles.createTempDir("latchkey-redis-cluster-" + index + "-");
            IllegalStateException last = null;
            for (int attempt = 0; attempt < 5; attempt++) {
                int port = TestFiles.freePort();
                // The bus port defaults to port + 10000, which may be taken or above 65535: pick it too.
                int busPort = TestFiles.freePort();
                writeConfig(dir, host, port, busPort, replicas);
                List<String> command = List.of(binary.toString(), "redis.conf");
                ServerProcess process = new ServerProcess("redis-cluster-" + port,
                        segment == null ? command : segment.wrap(index, command), dir);
                Node node = new Node(dir, host, port, busPort, process);
                try {
                    process.start(node::answersPing, START_TIMEOUT);
                    return node;
                } catch (IllegalStateException e) {
                    last = e;
                    if (!process.recentOutput().contains("Address already in use")) {
                        break;
                    }
                    // The port (or the bus port) was taken between the probe and the bind.
                    deleteNodesConf(dir);
                }
            }
            TestFiles.deleteRecursively(dir);
            throw last;
        }

        private static void writeConfig(Path dir, String host, int port, int busPort, boolean replicas) {
            String conf = "bind " + host + "\n"
                    + "port " + port + "\n"
                    + "protected-mode no\n"
                    + "daemonize no\n"
                    + "dir " + dir.toAbsolutePath() + "\n"
                    + "save \"\"\n"
                    + "appendonly no\n"
                    + "logfile \"\"\n"
                    + "cluster-enabled yes\n"
                    + "cluster-port " + busPort + "\n"
                    + "cluster-config-file nodes.conf\n"
                    // Without replicas long: a node stalled by a loaded machine must not be marked failed (no
                    // replica would take over, its slots would only refuse commands until the flag clears). With
                    // replicas short, for failover; a replica may always be promoted (validity factor 0).
                    + "cluster-node-timeout " + (replicas ? FAILOVER_NODE_TIMEOUT_MILLIS : 20000) + "\n"
                    + (replicas ? "cluster-replica-validity-factor 0\n" : "")
                    // A test cluster has no replicas: a node that is briefly unreachable must not take slots down.
                    + "cluster-require-full-coverage no\n";
            try {
                Files.writeString(dir.resolve("redis.conf"), conf);
            } catch (IOException e) {
                throw new UncheckedIOException("could not write redis.conf", e);
            }
        }

        private static void deleteNodesConf(Path dir) {
            try {
                Files.deleteIfExists(dir.resolve("nodes.conf"));
            } catch (IOException e) {
                // A stale nodes.conf only names another port; the next start overwrites it.
            }
        }

        private boolean answersPing() {
            try (RespConnection c = new RespConnection(host, port, null, null, null, 200)) {
                return "PONG".equals(c.execute("PING"));
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }

        Object execute(String... command) {
            try (RespConnection c = new RespConnection(host, port, null, null, null, 5_000)) {
                return c.execute(command);
            } catch (IOException e) {
                throw new UncheckedIOException("could not run " + command[0] + " on the cluster node at " + host
                        + ":" + port, e);
            }
        }

        Object tryExecute(String... command) {
            try {
                return execute(command);
            } catch (RuntimeException e) {
                return e.getMessage();
            }
        }

        void close() {
            process.stop();
            TestFiles.deleteRecursively(dir);
        }

        @Override
        public String toString() {
            return host + ":" + port;
        }
    }
}
