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
import java.util.StringJoiner;

/**
 * {@code --embedded zookeeper-ensemble}: three ZooKeeper members, each in a JVM of its own
 * ({@link ZooKeeperMemberMain}), so that the failover fault can kill the leader with SIGKILL. The remaining two
 * elect a new leader; the killed member is then started again and rejoins.
 */
final class ZooKeeperEnsembleControl extends MemberCluster {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final List<ServerJvm> members;
    private final int[] clientPorts;
    private final String[] addresses;

    private ZooKeeperEnsembleControl(String uri, List<ServerJvm> members, int[] clientPorts, String[] addresses,
                                     Path dir, NetworkSegment segment) {
        super("zookeeper-ensemble", uri, "ZooKeeper ensemble of three members (JVMs of their own"
                + (segment == null ? "" : ", each in a network namespace of its own on one bridge") + ") at "
                + uri.substring("zookeeper://".length()), "the ZooKeeper ensemble", "a ZooKeeper leader", dir,
                segment);
        this.members = members;
        this.clientPorts = clientPorts;
        this.addresses = addresses;
    }

    static ZooKeeperEnsembleControl start(Path dir, Duration lease) {
        return start(dir, lease, false);
    }

    /**
     * @param partitions run each member in a network namespace of its own on one bridge (needs root), so that the
     *        leader can be cut off from the others and from the workers
     */
    static ZooKeeperEnsembleControl start(Path dir, Duration lease, boolean partitions) {
        NetworkSegment segment = partitions ? NetworkSegment.create("the partition faults of zookeeper-ensemble", SIZE + 1)
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

    @Override
    boolean isAlive(int i) {
        return members.get(i).isAlive();
    }

    @Override
    boolean leads(int i) {
        return srvr(addresses[i], clientPorts[i]).contains("Mode: leader");
    }

    @Override
    void kill(int i) {
        members.get(i).kill();
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
}
