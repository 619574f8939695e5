package io.latchkey.cli;

import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;

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

    @Override
    boolean waitersKnown() {
        return true;
    }

    @Override
    void stopServer() throws Exception {
        zookeeper.close();
    }
}
