package io.latchkey.cli;

import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import org.junit.jupiter.api.AfterAll;

/** The console on ZooKeeper in a browser. */
class ConsoleZooKeeperBrowserTest extends ConsoleBrowserTestBase {

    private final EmbeddedZooKeeper zookeeper = start();

    private static EmbeddedZooKeeper start() {
        try {
            return EmbeddedZooKeeper.start();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    String uri() {
        return zookeeper.uri();
    }

    @AfterAll
    void stopZooKeeper() throws Exception {
        zookeeper.close();
    }
}
