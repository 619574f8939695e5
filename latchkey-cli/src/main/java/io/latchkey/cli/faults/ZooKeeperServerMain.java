package io.latchkey.cli.faults;

import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A ZooKeeper server in a JVM of its own, so that a fault run can kill it with SIGKILL and start it again on the
 * same port and data directory. Arguments: {@code PORT DATA-DIR TICK-MILLIS}. Prints {@code READY} once it serves.
 */
public final class ZooKeeperServerMain {

    private ZooKeeperServerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("zookeeper.admin.enableServer", "false");
        EmbeddedZooKeeper.builder().port(Integer.parseInt(args[0])).dataDir(Path.of(args[1]))
                .tickTime(Duration.ofMillis(Long.parseLong(args[2]))).start();
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
