package io.latchkey.zookeeper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.StringJoiner;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/** A real 3-member ZooKeeper ensemble inside the test JVM, on loopback ports; members can be stopped one by one. */
final class ZooKeeperEnsemble implements AutoCloseable {

    private final int[] clientPorts;
    private final ZooKeeperServerEmbedded[] members;
    private final boolean[] running;

    ZooKeeperEnsemble(int size) throws Exception {
        System.setProperty("zookeeper.4lw.commands.whitelist", "srvr");
        System.setProperty("zookeeper.admin.enableServer", "false");
        clientPorts = new int[size];
        int[] quorumPorts = new int[size];
        int[] electionPorts = new int[size];
        for (int i = 0; i < size; i++) {
            clientPorts[i] = freePort();
            quorumPorts[i] = freePort();
            electionPorts[i] = freePort();
        }
        members = new ZooKeeperServerEmbedded[size];
        running = new boolean[size];
        for (int i = 0; i < size; i++) {
            Properties p = new Properties();
            p.setProperty("tickTime", "200");
            p.setProperty("initLimit", "50");
            p.setProperty("syncLimit", "10");
            p.setProperty("clientPort", Integer.toString(clientPorts[i]));
            p.setProperty("clientPortAddress", "127.0.0.1");
            p.setProperty("maxSessionTimeout", "60000");
            p.setProperty("4lw.commands.whitelist", "srvr");
            p.setProperty("admin.enableServer", "false");
            for (int j = 0; j < size; j++) {
                p.setProperty("server." + (j + 1), "127.0.0.1:" + quorumPorts[j] + ":" + electionPorts[j]);
            }
            Path dir = Files.createTempDirectory("latchkey-zk-ensemble-" + (i + 1) + "-");
            Files.createDirectories(dir.resolve("data"));
            Files.writeString(dir.resolve("data").resolve("myid"), Integer.toString(i + 1));
            members[i] = ZooKeeperServerEmbedded.builder().baseDir(dir).configuration(p)
                    .exitHandler(ExitHandler.LOG_ONLY).build();
        }
        List<Thread> starters = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            int m = i;
            // start() waits for the member to serve, which needs a quorum: start them side by side
            Thread t = new Thread(() -> {
                try {
                    members[m].start(60_000);
                    running[m] = true;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "ensemble-start-" + (i + 1));
            t.start();
            starters.add(t);
        }
        for (Thread t : starters) {
            t.join();
        }
    }

    String connectString() {
        StringJoiner j = new StringJoiner(",");
        for (int p : clientPorts) {
            j.add("127.0.0.1:" + p);
        }
        return j.toString();
    }

    String uri() {
        return "zookeeper://" + connectString();
    }

    /** The index of the current leader, asked with the {@code srvr} four-letter word. */
    int leader() throws IOException {
        for (int i = 0; i < members.length; i++) {
            if (running[i] && srvr(clientPorts[i]).contains("Mode: leader")) {
                return i;
            }
        }
        return -1;
    }

    void stop(int member) {
        members[member].close();
        running[member] = false;
    }

    private static String srvr(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2000);
            s.setSoTimeout(2000);
            OutputStream out = s.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            StringBuilder sb = new StringBuilder();
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            String line;
            while ((line = in.readLine()) != null) {
                sb.append(line).append('\n');
            }
            return sb.toString();
        } catch (IOException e) {
            return "";
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        for (int i = 0; i < members.length; i++) {
            if (running[i]) {
                stop(i);
            }
        }
    }
}
