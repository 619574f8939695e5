package io.latchkey.bench.sizing;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.bench.zookeeper.FourLetterWords;
import io.latchkey.testing.ServerProcess;
import io.latchkey.testing.TestFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * ZooKeeper servers in JVMs of their own (the ZooKeeper server jar of the benchmark's class path, run by
 * {@code QuorumPeerMain}), so that their CPU time and memory are theirs and not the client's: one standalone server,
 * or an ensemble of three on 127.0.0.1 with quorum ports of their own. Data and transaction logs live in memory
 * ({@code /dev/shm} where there is one): the transaction log's fsync costs nothing here.
 */
final class ZooKeeperEnsemble implements Topology {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    /** The server JVM's heap: the znodes of 100,000 held locks fit in a few tens of MB. */
    private static final String HEAP = "-Xmx512m";

    private final Path dir;
    private final int[] clientPorts;
    private final List<ServerProcess> processes = new ArrayList<>();
    private String version = "?";

    private ZooKeeperEnsemble(int nodes) {
        this.dir = EtcdCluster.memoryDir("latchkey-zk-sizing-");
        this.clientPorts = new int[nodes];
    }

    static ZooKeeperEnsemble start(int nodes) {
        ZooKeeperEnsemble e = new ZooKeeperEnsemble(nodes);
        try {
            e.launch();
            return e;
        } catch (RuntimeException ex) {
            e.close();
            throw ex;
        }
    }

    private void launch() {
        int n = clientPorts.length;
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clientPorts[i] = TestFiles.freePort();
            if (n > 1) {
                servers.add("server." + (i + 1) + "=127.0.0.1:" + TestFiles.freePort() + ":" + TestFiles.freePort());
            }
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int i = 0; i < n; i++) {
            Path node = dir.resolve("node" + (i + 1));
            List<String> cfg = new ArrayList<>(List.of("tickTime=2000", "initLimit=10", "syncLimit=5",
                    "dataDir=" + node.resolve("data"), "clientPort=" + clientPorts[i],
                    "clientPortAddress=127.0.0.1", "maxClientCnxns=0", "admin.enableServer=false",
                    "4lw.commands.whitelist=srvr,mntr,ruok"));
            cfg.addAll(servers);
            try {
                Files.createDirectories(node.resolve("data"));
                Files.writeString(node.resolve("data").resolve("myid"), Integer.toString(i + 1));
                Files.write(node.resolve("zoo.cfg"), cfg);
            } catch (IOException ex) {
                throw new UncheckedIOException("could not write the configuration of ZooKeeper node " + (i + 1), ex);
            }
            ServerProcess p = new ServerProcess("zookeeper-" + clientPorts[i], List.of(java, HEAP, "-XX:+UseSerialGC",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dzookeeper.jmx.log4j.disable=true",
                    "-cp", System.getProperty("java.class.path"),
                    "org.apache.zookeeper.server.quorum.QuorumPeerMain", node.resolve("zoo.cfg").toString()), node);
            processes.add(p);
            int port = clientPorts[i];
            // An ensemble member answers only once a quorum is up: wait for the process to listen, the mode below.
            p.start(() -> FourLetterWords.ask("127.0.0.1", port, "ruok").startsWith("imok"), START_TIMEOUT);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        for (int port : clientPorts) {
            String srvr;
            while (!(srvr = FourLetterWords.ask("127.0.0.1", port, "srvr")).contains("Mode:")) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("ZooKeeper on port " + port + " did not join its ensemble within "
                            + START_TIMEOUT + "; last answer to srvr: '" + srvr + "'");
                }
                sleep(100);
            }
            version = srvr.lines().findFirst().orElse("?").replaceFirst("Zookeeper version: ", "")
                    .replaceFirst(",.*", "");
        }
    }

    @Override
    public String key() {
        return "zookeeper-" + clientPorts.length;
    }

    @Override
    public String label() {
        return "ZooKeeper " + version + (clientPorts.length == 1 ? ", one server" : ", ensemble of " + clientPorts.length);
    }

    @Override
    public int nodes() {
        return clientPorts.length;
    }

    @Override
    public String setup() {
        return "QuorumPeerMain in JVMs of their own (" + HEAP + ", serial GC), tickTime 2000 ms, data and transaction "
                + "log in /dev/shm (fsync of the log costs nothing); the client is given every server";
    }

    @Override
    public LockClient connect(ClientOptions options) {
        String hosts = java.util.Arrays.stream(clientPorts).mapToObj(p -> "127.0.0.1:" + p)
                .collect(Collectors.joining(","));
        return LockClient.connect("zookeeper://" + hosts, options);
    }

    @Override
    public void close() {
        processes.forEach(ServerProcess::stop);
        TestFiles.deleteRecursively(dir);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting a server", e);
        }
    }
}
