package io.latchkey.cli.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * One member of a ZooKeeper ensemble in a JVM of its own. Arguments: {@code MYID BASE-DIR TICK-MILLIS} then one
 * {@code CLIENT:QUORUM:ELECTION} port triple per member, in member order. Prints {@code READY} once it serves (which
 * needs a quorum).
 */
public final class ZooKeeperMemberMain {

    private ZooKeeperMemberMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.setProperty("zookeeper.4lw.commands.whitelist", "srvr");
        System.setProperty("zookeeper.admin.enableServer", "false");
        int myid = Integer.parseInt(args[0]);
        Path base = Path.of(args[1]);
        String tick = args[2];
        Properties p = new Properties();
        p.setProperty("tickTime", tick);
        p.setProperty("initLimit", "50");
        p.setProperty("syncLimit", "10");
        p.setProperty("maxSessionTimeout", "60000");
        p.setProperty("4lw.commands.whitelist", "srvr");
        p.setProperty("admin.enableServer", "false");
        for (int i = 3; i < args.length; i++) {
            // client:peer:election on 127.0.0.1, or host:client:peer:election
            String[] parts = args[i].split(":");
            String host = parts.length == 4 ? parts[0] : "127.0.0.1";
            String[] ports = parts.length == 4 ? java.util.Arrays.copyOfRange(parts, 1, 4) : parts;
            if (i - 2 == myid) {
                p.setProperty("clientPort", ports[0]);
                p.setProperty("clientPortAddress", host);
            }
            p.setProperty("server." + (i - 2), host + ":" + ports[1] + ":" + ports[2]);
        }
        Files.createDirectories(base.resolve("data"));
        Files.writeString(base.resolve("data").resolve("myid"), Integer.toString(myid));
        ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder().baseDir(base).configuration(p)
                .exitHandler(ExitHandler.LOG_ONLY).build();
        server.start(120_000);
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
