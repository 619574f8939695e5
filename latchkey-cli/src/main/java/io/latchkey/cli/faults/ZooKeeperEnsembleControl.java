package io.latchkey.cli.faults;

import io.latchkey.testing.NetworkSegment;
import io.latchkey.testing.TestFiles;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.TimeUnit;

/**
 * {@code --embedded zookeeper-ensemble}: three ZooKeeper members, each in a JVM of its own
 * ({@link ZooKeeperMemberMain}), so that the failover fault can kill the leader with SIGKILL. The remaining two
 * elect a new leader; the killed member is then started again and rejoins.
 */
final class ZooKeeperEnsembleControl extends EmbeddedServers.Base {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);
    private static final int SIZE = 3;

    private final List<ServerJvm> members;
    private final int[] clientPorts;
    private final String[] addresses;
    private final Path dir;
    private final NetworkSegment segment;

    private ZooKeeperEnsembleControl(String uri, List<ServerJvm> members, int[] clientPorts, String[] addresses,
                                     Path dir, NetworkSegment segment) {
        super("zookeeper-ensemble", uri, "ZooKeeper ensemble of three members (JVMs of their own"
                + (segment == null ? "" : ", each in a network namespace of its own on one bridge") + ") at "
                + uri.substring("zookeeper://".length()), segment == null ? Set.of(FaultKind.FAILOVER)
                : Set.of(FaultKind.FAILOVER, FaultKind.PARTITION_LEADER, FaultKind.PARTITION_SERVER), true);
        this.members = members;
        this.clientPorts = clientPorts;
        this.addresses = addresses;
        this.dir = dir;
        this.segment = segment;
    }

    static ZooKeeperEnsembleControl start(Path dir, Duration lease) {
        return start(dir, lease, false);
    }

    /**
     * @param partitions run each member in a network namespace of its own on one bridge (needs root), so that the
     *        leader can be cut off from the others and from the workers
     */
    static ZooKeeperEnsembleControl start(Path dir, Duration lease, boolean partitions) {
        NetworkSegment segment = partitions ? NetworkSegment.create("the partition faults of zookeeper-ensemble", SIZE)
                : null;
        long tick = Math.max(50, Math.min(500, lease.toMillis() / 8));
        int[] client = new int[SIZE];
        String[] address = new String[SIZE];
        List<String> triples = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            client[i] = TestFiles.freePort();
            address[i] = segment == null ? "127.0.0.1" : segment.address(i);
            triples.add((segment == null ? "" : address[i] + ":") + client[i] + ":" + TestFiles.freePort() + ":"
                    + TestFiles.freePort());
        }
        List<ServerJvm> members = new ArrayList<>();
        StringJoiner hosts = new StringJoiner(",");
        for (int i = 0; i < SIZE; i++) {
            List<String> args = new ArrayList<>(List.of(Integer.toString(i + 1), dir.resolve("m" + (i + 1)).toString(),
                    Long.toString(tick)));
            args.addAll(triples);
            members.add(new ServerJvm("zookeeper-member-" + (i + 1), ZooKeeperMemberMain.class, args,
                    segment == null ? List.of() : segment.wrap(i, List.of())));
            hosts.add(address[i] + ":" + client[i]);
        }
        // A member serves only with a quorum: start them side by side.
        List<Thread> starters = new ArrayList<>();
        List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
        for (ServerJvm m : members) {
            Thread t = new Thread(() -> {
                try {
                    m.start(START_TIMEOUT);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            }, "latchkey-faults-zookeeper-start");
            t.start();
            starters.add(t);
        }
        try {
            for (Thread t : starters) {
                t.join();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ZooKeeperEnsembleControl control = new ZooKeeperEnsembleControl("zookeeper://" + hosts, members, client,
                address, dir, segment);
        if (!failures.isEmpty()) {
            control.close();
            throw failures.get(0);
        }
        return control;
    }

    /** Kills the leader, waits for the others to elect a new one, then starts the killed member again. */
    @Override
    public void failover() {
        int leader = awaitLeader(-1);
        members.get(leader).kill();
        awaitLeader(leader);
        members.get(leader).start(START_TIMEOUT);
    }

    /** Cuts every member off (each one's link down). */
    @Override
    public void partition() {
        for (int i = 0; i < SIZE; i++) {
            segment.cut(i);
        }
    }

    /** Cuts the leader off from the other members and every worker, and returns once the other two elected one. */
    @Override
    public void isolateLeader() {
        int leader = awaitLeader(-1);
        segment.cut(leader);
        awaitLeader(leader);
    }

    @Override
    public void heal() {
        for (int i = 0; i < SIZE; i++) {
            if (segment.isCut(i)) {
                segment.heal(i);
            }
        }
    }

    private int awaitLeader(int excluded) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() - deadline < 0) {
            for (int i = 0; i < SIZE; i++) {
                if (i != excluded && members.get(i).isAlive() && (segment == null || !segment.isCut(i))
                        && srvr(addresses[i], clientPorts[i]).contains("Mode: leader")) {
                    return i;
                }
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a ZooKeeper leader", e);
            }
        }
        throw new IllegalStateException("the ZooKeeper ensemble elected no leader within 60s");
    }

    /** The {@code srvr} four-letter word's answer, or "" if the member does not answer. */
    private static String srvr(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getByName(host), port), 1000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            StringBuilder sb = new StringBuilder();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                    StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
                sb.append(line).append('\n');
            }
            return sb.toString();
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() {
        try {
            for (ServerJvm m : members) {
                m.kill();
            }
            TestFiles.deleteRecursively(dir);
        } finally {
            if (segment != null) {
                segment.close();
            }
        }
    }
}
