package io.latchkey.cli.faults;

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
    private final Path dir;

    private ZooKeeperEnsembleControl(String uri, List<ServerJvm> members, int[] clientPorts, Path dir) {
        super("zookeeper-ensemble", uri, "ZooKeeper ensemble of three members (JVMs of their own) at "
                + uri.substring("zookeeper://".length()), Set.of(FaultKind.FAILOVER), true);
        this.members = members;
        this.clientPorts = clientPorts;
        this.dir = dir;
    }

    static ZooKeeperEnsembleControl start(Path dir, Duration lease) {
        long tick = Math.max(50, Math.min(500, lease.toMillis() / 8));
        int[] client = new int[SIZE];
        List<String> triples = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            client[i] = TestFiles.freePort();
            triples.add(client[i] + ":" + TestFiles.freePort() + ":" + TestFiles.freePort());
        }
        List<ServerJvm> members = new ArrayList<>();
        StringJoiner hosts = new StringJoiner(",");
        for (int i = 0; i < SIZE; i++) {
            List<String> args = new ArrayList<>(List.of(Integer.toString(i + 1), dir.resolve("m" + (i + 1)).toString(),
                    Long.toString(tick)));
            args.addAll(triples);
            members.add(new ServerJvm("zookeeper-member-" + (i + 1), ZooKeeperMemberMain.class, args));
            hosts.add("127.0.0.1:" + client[i]);
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
        ZooKeeperEnsembleControl control = new ZooKeeperEnsembleControl("zookeeper://" + hosts, members, client, dir);
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

    private int awaitLeader(int excluded) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() - deadline < 0) {
            for (int i = 0; i < SIZE; i++) {
                if (i != excluded && members.get(i).isAlive() && srvr(clientPorts[i]).contains("Mode: leader")) {
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
    private static String srvr(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
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
        for (ServerJvm m : members) {
            m.kill();
        }
        TestFiles.deleteRecursively(dir);
    }
}
