package io.latchkey.cli.faults;

import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A ZooKeeper server in a JVM of its own, so that a fault run can kill it with SIGKILL and start it again on the
 * same port and data directory. Arguments: {@code PORT DATA-DIR TICK-MILLIS [ADDRESS]} (the address
 * to bind, in a network namespace; loopback without it). Prints {@code READY} once it serves.
 */
public final class ZooKeeperServerMain {

    private ZooKeeperServerMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("zookeeper.admin.enableServer", "false");
        if (args.length > 3) {
            // on the address of a network namespace: a standalone server bound to it
            java.util.Properties p = new java.util.Properties();
            p.setProperty("tickTime", args[2]);
            p.setProperty("clientPort", args[0]);
            p.setProperty("clientPortAddress", args[3]);
            p.setProperty("maxSessionTimeout", "60000");
            p.setProperty("admin.enableServer", "false");
            java.nio.file.Files.createDirectories(Path.of(args[1]));
            org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded.builder().baseDir(Path.of(args[1]))
                    .configuration(p).exitHandler(org.apache.zookeeper.server.embedded.ExitHandler.LOG_ONLY).build()
                    .start(120_000);
        } else {
            EmbeddedZooKeeper.builder().port(Integer.parseInt(args[0])).dataDir(Path.of(args[1]))
                    .tickTime(Duration.ofMillis(Long.parseLong(args[2]))).start();
        }
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
