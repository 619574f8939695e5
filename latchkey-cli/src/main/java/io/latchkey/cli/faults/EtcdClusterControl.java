package io.latchkey.cli.faults;

import io.latchkey.testing.EtcdServer;
import io.latchkey.testing.NetworkSegment;
import io.latchkey.testing.ServerProcess;
import io.latchkey.testing.TestFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code --embedded etcd-cluster}: three etcd members (Debian's {@code etcd-server}) on loopback ports, data in
 * {@code /dev/shm} where available. The failover fault kills the leader with SIGKILL, waits until the other two have
 * elected a new one, then starts the killed member again on its data (it rejoins). With the partition faults each member
 * runs in a network namespace of its own on one bridge ({@link NetworkSegment}): partition-leader cuts the leader's
 * link (it loses the other members and every worker) until the other two have elected a new leader and the fault's
 * length has passed; partition-server cuts every member's.
 */
final class EtcdClusterControl extends MemberCluster {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Pattern MEMBER = Pattern.compile("\"member_id\":\"(\\d+)\"");
    private static final Pattern LEADER = Pattern.compile("\"leader\":\"(\\d+)\"");

    private final List<ServerProcess> members;
    private final int[] clientPorts;
    private final String[] addresses;

    private EtcdClusterControl(String uri, List<ServerProcess> members, int[] clientPorts, String[] addresses, Path dir,
                               NetworkSegment segment) {
        super("etcd-cluster", uri, "etcd cluster of three members at " + uri.substring("etcd://".length())
                + (segment == null ? "" : ", each in a network namespace of its own on one bridge"),
                "the etcd cluster", "an etcd leader", dir, segment);
        this.members = members;
        this.clientPorts = clientPorts;
        this.addresses = addresses;
    }

    static EtcdClusterControl start(Path base) {
        return start(base, false);
    }

    /**
     * @param partitions run each member in a network namespace of its own on one bridge (needs root), so that the
     *        leader can be cut off from the others and from the workers
     */
    static EtcdClusterControl start(Path base, boolean partitions) {
        Path binary = ServerProcess.requireBinary("etcd", EtcdServer.INSTALL_HINT);
        NetworkSegment segment = partitions ? NetworkSegment.create("the partition faults of etcd-cluster", SIZE + 1)
                : null;
        Path dir;
        try {
            dir = dataDir(base);
        } catch (RuntimeException e) {
            if (segment != null) {
                segment.close();
            }
            throw e;
        }
        int[] client = new int[SIZE];
        int[] peer = new int[SIZE];
        String[] address = new String[SIZE];
        StringJoiner cluster = new StringJoiner(",");
        StringJoiner hosts = new StringJoiner(",");
        for (int i = 0; i < SIZE; i++) {
            address[i] = segment == null ? "127.0.0.1" : segment.address(i);
            client[i] = TestFiles.freePort();
            peer[i] = TestFiles.freePort();
            cluster.add("m" + (i + 1) + "=http://" + address[i] + ":" + peer[i]);
            hosts.add(address[i] + ":" + client[i]);
        }
        List<ServerProcess> members = new ArrayList<>();
        for (int i = 0; i < SIZE; i++) {
            String c = "http://" + address[i] + ":" + client[i];
            String p = "http://" + address[i] + ":" + peer[i];
            List<String> command = List.of(binary.toString(), "--name", "m" + (i + 1),
                    "--data-dir", dir.resolve("m" + (i + 1)).toString(),
                    "--listen-client-urls", c, "--advertise-client-urls", c,
                    "--listen-peer-urls", p, "--initial-advertise-peer-urls", p,
                    "--initial-cluster", cluster.toString(), "--initial-cluster-state", "new",
                    "--initial-cluster-token", "latchkey-faults",
                    "--heartbeat-interval", "100", "--election-timeout", "1000",
                    "--log-level", "warn");
            members.add(new ServerProcess("etcd-m" + (i + 1), segment == null ? command : segment.wrap(i, command),
                    dir));
        }
        EtcdClusterControl control = new EtcdClusterControl("etcd://" + hosts, members, client, address, dir, segment);
        // A member is healthy only with a quorum: start all three, then wait.
        try {
            List<Thread> starters = new ArrayList<>();
            List<RuntimeException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int i = 0; i < SIZE; i++) {
                int m = i;
                Thread t = new Thread(() -> {
                    try {
                        members.get(m).start(() -> healthy(address[m], client[m]), START_TIMEOUT);
                    } catch (RuntimeException e) {
                        failures.add(e);
                    }
                }, "latchkey-faults-etcd-start");
                t.start();
                starters.add(t);
            }
            for (Thread t : starters) {
                t.join();
            }
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            control.close();
            throw new IllegalStateException("interrupted while starting the etcd cluster", e);
        } catch (RuntimeException e) {
            control.close();
            throw e;
        }
        return control;
    }

    private static Path dataDir(Path fallback) {
        Path shm = Path.of("/dev/shm");
        try {
            if (Files.isDirectory(shm) && Files.isWritable(shm)) {
                return Files.createTempDirectory(shm, "latchkey-faults-etcd-");
            }
            return Files.createDirectories(fallback);
        } catch (IOException e) {
            throw new IllegalStateException("could not create the etcd cluster's data directory", e);
        }
    }

    @Override
    public void failover() {
        int leader = awaitLeader(-1);
        members.get(leader).kill();
        awaitLeader(leader);
        int port = clientPorts[leader];
        String host = addresses[leader];
        members.get(leader).start(() -> healthy(host, port), START_TIMEOUT);
    }

    @Override
    boolean isAlive(int i) {
        return members.get(i).isAlive();
    }

    @Override
    boolean leads(int i) {
        String status = status(addresses[i], clientPorts[i]);
        Matcher member = MEMBER.matcher(status);
        Matcher leader = LEADER.matcher(status);
        return member.find() && leader.find() && member.group(1).equals(leader.group(1));
    }

    @Override
    void kill(int i) {
        members.get(i).kill();
    }

    private static String status(String host, int port) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://" + host + ":" + port
                    + "/v3/maintenance/status").toURL().openConnection();
            c.setConnectTimeout(500);
            c.setReadTimeout(2000);
            c.setRequestMethod("POST");
            c.setDoOutput(true);
            try (OutputStream out = c.getOutputStream()) {
                out.write("{}".getBytes(StandardCharsets.UTF_8));
            }
            try (InputStream in = c.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                c.disconnect();
            }
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static boolean healthy(String host, int port) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://" + host + ":" + port + "/health").toURL()
                    .openConnection();
            c.setConnectTimeout(200);
            c.setReadTimeout(1000);
            try (InputStream in = c.getInputStream()) {
                return c.getResponseCode() == 200
                        && new String(in.readAllBytes(), StandardCharsets.UTF_8).contains("\"health\":\"true\"");
            } finally {
                c.disconnect();
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
