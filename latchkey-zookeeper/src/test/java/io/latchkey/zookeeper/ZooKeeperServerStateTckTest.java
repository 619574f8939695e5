package io.latchkey.zookeeper;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.ServerStateTck;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The TCK's {@link ServerStateTck} on a ZooKeeper server of its own.
 *
 * <p>{@link #serverObjects()} counts the znodes under {@code /latchkey} with a plain client, after the server's
 * container check ran ({@link EmbeddedZooKeeper#reapEmptyContainers()}): a free lock's path is an empty container
 * node that the server deletes on its next check (every 60 s by default), not at once; the test runs the check rather
 * than waiting for it.
 *
 * <p>{@link #loseServerData()} restarts the server <em>with</em> its data: tokens are zxids, positions in the
 * server's own transaction history, which no client-side scheme can carry across the loss of that history. What
 * ZooKeeper promises, and this checks, is that tokens keep increasing across a restart (or a leader change) with the
 * data; a server that lost its data directory starts its zxids again and tokens then repeat (docs/fencing.md).
 */
class ZooKeeperServerStateTckTest extends ServerStateTck {

    private static final Duration TICK = Duration.ofMillis(200);
    private static Path dataDir;
    private static EmbeddedZooKeeper server;
    private static int port;

    @BeforeAll
    static void startServer() throws Exception {
        dataDir = Files.createTempDirectory("latchkey-zk-state-");
        server = EmbeddedZooKeeper.builder().dataDir(dataDir).tickTime(TICK).start();
        port = server.port();
    }

    @AfterAll
    static void stopServer() throws Exception {
        server.close();
        try (Stream<Path> files = Files.walk(dataDir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect("zookeeper://127.0.0.1:" + port, options);
    }

    @Override
    protected String backendName() {
        return "zookeeper";
    }

    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofMillis(2000);
    }

    @Override
    protected long serverObjects() throws Exception {
        // Two checks: the second deletes parents the first one emptied (/latchkey/locks …).
        for (int i = 0; i < 2; i++) {
            server.reapEmptyContainers();
            Thread.sleep(300);
        }
        try (CuratorFramework zk = SharedZooKeeper.curator(server.connectString(), 5_000)) {
            return countBelow(zk, "/latchkey");
        }
    }

    private static long countBelow(CuratorFramework zk, String root) throws Exception {
        long n = 0;
        Deque<String> todo = new ArrayDeque<>(List.of(root));
        while (!todo.isEmpty()) {
            String path = todo.pop();
            List<String> children;
            try {
                children = zk.getChildren().forPath(path);
            } catch (KeeperException.NoNodeException e) {
                continue;
            }
            n++;
            for (String c : children) {
                todo.push(path + "/" + c);
            }
        }
        return n;
    }

    /** A restart with the data (see the class comment for why not without). */
    @Override
    protected void loseServerData() {
        server.close();
        server = EmbeddedZooKeeper.builder().port(port).dataDir(dataDir).tickTime(TICK).start();
    }
}
