package io.latchkey.bench.sizing;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.testing.EtcdServer;
import io.latchkey.testing.ServerProcess;
import io.latchkey.testing.TestFiles;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One etcd member, or a cluster of three on 127.0.0.1, each an {@code etcd} child process with its data directory
 * in memory ({@code /dev/shm} where there is one): etcd fsyncs its write-ahead log on every write, which here costs
 * nothing, so the figures are the members' CPU and the Raft round trips, not a disk's.
 */
final class EtcdCluster implements Topology {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final Path dir;
    private final int[] clientPorts;
    private final List<ServerProcess> processes = new ArrayList<>();
    private String version = "?";

    private EtcdCluster(int members) {
        this.dir = memoryDir("latchkey-etcd-sizing-");
        this.clientPorts = new int[members];
    }

    static EtcdCluster start(int members) {
        EtcdCluster c = new EtcdCluster(members);
        try {
            c.launch();
            return c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void launch() {
        int n = clientPorts.length;
        int[] peerPorts = new int[n];
        List<String> initial = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clientPorts[i] = TestFiles.freePort();
            do {
                peerPorts[i] = TestFiles.freePort();
            } while (peerPorts[i] == clientPorts[i]);
            initial.add("m" + (i + 1) + "=http://127.0.0.1:" + peerPorts[i]);
        }
        String binary = ServerProcess.requireBinary("etcd", EtcdServer.INSTALL_HINT).toString();
        for (int i = 0; i < n; i++) {
            String client = "http://127.0.0.1:" + clientPorts[i];
            String peer = "http://127.0.0.1:" + peerPorts[i];
            ServerProcess p = new ServerProcess("etcd-" + clientPorts[i], List.of(binary, "--name", "m" + (i + 1),
                    "--data-dir", dir.resolve("m" + (i + 1)).toString(),
                    "--listen-client-urls", client, "--advertise-client-urls", client,
                    "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
                    "--initial-cluster", String.join(",", initial), "--initial-cluster-state", "new",
                    "--initial-cluster-token", "latchkey-sizing", "--log-level", "warn"), dir);
            processes.add(p);
            int port = clientPorts[i];
            // A member listens before the others are up; health (a leader elected) is awaited below.
            p.start(() -> listens(port), START_TIMEOUT);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        for (int port : clientPorts) {
            while (!get(port, "/health").contains("\"health\":\"true\"")) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("etcd member on port " + port + " was not healthy within "
                            + START_TIMEOUT + ": " + processes.stream().map(ServerProcess::recentOutput)
                            .collect(Collectors.joining("\n")));
                }
                ZooKeeperEnsemble.sleep(100);
            }
        }
        // {"etcdserver":"3.4.23","etcdcluster":"3.4.0"}
        String v = get(clientPorts[0], "/version");
        int at = v.indexOf("\"etcdserver\":\"");
        version = at < 0 ? "?" : v.substring(at + 14, v.indexOf('"', at + 14));
    }

    /** A fresh temporary directory in memory where possible. */
    static Path memoryDir(String prefix) {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            try {
                return Files.createTempDirectory(shm, prefix);
            } catch (IOException e) {
                // the usual temporary directory below
            }
        }
        return TestFiles.createTempDir(prefix);
    }

    private static boolean listens(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static String get(int port, String path) {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://127.0.0.1:" + port + path).toURL()
                    .openConnection();
            c.setConnectTimeout(200);
            c.setReadTimeout(2000);
            try (InputStream in = c.getInputStream()) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } finally {
                c.disconnect();
            }
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    @Override
    public String key() {
        return "etcd-" + clientPorts.length;
    }

    @Override
    public String label() {
        return "etcd " + version + (clientPorts.length == 1 ? ", one member" : ", cluster of " + clientPorts.length);
    }

    @Override
    public int nodes() {
        return clientPorts.length;
    }

    @Override
    public String setup() {
        return "etcd members with their data directories in /dev/shm (the WAL's fsync costs nothing), default "
                + "heartbeat and election timeouts; the client is given every member";
    }

    @Override
    public LockClient connect(ClientOptions options) {
        String hosts = java.util.Arrays.stream(clientPorts).mapToObj(p -> "127.0.0.1:" + p)
                .collect(Collectors.joining(","));
        return LockClient.connect("etcd://" + hosts, options);
    }

    @Override
    public void close() {
        processes.forEach(ServerProcess::stop);
        TestFiles.deleteRecursively(dir);
    }
}
