package io.latchkey.zookeeper;

import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** One embedded server for the whole test JVM (short ticks so session expiry is quick), started on first use. */
public final class SharedZooKeeper {

    private static EmbeddedZooKeeper server;

    private SharedZooKeeper() {
    }

    public static synchronized EmbeddedZooKeeper server() {
        if (server == null) {
            server = EmbeddedZooKeeper.builder().tickTime(Duration.ofMillis(200)).start();
            EmbeddedZooKeeper s = server;
            Runtime.getRuntime().addShutdownHook(new Thread(s::close, "embedded-zookeeper-stop"));
        }
        return server;
    }

    /** A started Curator client of the shared server; the caller closes it. */
    public static CuratorFramework curator() {
        return curator(server().connectString(), 5_000);
    }

    public static CuratorFramework curator(String connectString, int sessionTimeoutMs) {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(connectString)
                .sessionTimeoutMs(sessionTimeoutMs)
                .connectionTimeoutMs(5_000)
                .retryPolicy(new ExponentialBackoffRetry(50, 5, 1000))
                .build();
        c.start();
        try {
            if (!c.blockUntilConnected(10, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("could not connect to " + connectString);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return c;
    }
}
