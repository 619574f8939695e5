package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * One redis-server process of a {@link RedisSentinelSetup} (master, replica or sentinel) with its directory and port:
 * its configuration written fresh for every start (Sentinel rewrites its file), a new free port if the first start
 * found the port taken, commands over one short RESP connection each. Not thread-safe.
 */
final class SentinelNode {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    final String kind;
    final Path dir;
    /** The segment member that runs it (with a segment). */
    final int index;
    final String host;
    int port;
    ServerProcess process;
    private final Path binary;
    private final NetworkSegment segment;

    /** @param segment the network it runs in (member {@code index}), or {@code null} for 127.0.0.1 */
    SentinelNode(String kind, int index, Path binary, NetworkSegment segment) {
        this.kind = kind;
        this.index = index;
        this.binary = binary;
        this.segment = segment;
        this.host = segment == null ? "127.0.0.1" : segment.address(index);
        this.dir = TestFiles.createTempDir("latchkey-" + kind + "-");
    }

    void startData(SentinelNode masterNode) {
        StringBuilder conf = common();
        conf.append("save \"\"\nappendonly no\n");
        if (masterNode != null) {
            conf.append("replicaof ").append(masterNode.host).append(' ').append(masterNode.port).append('\n');
        }
        start(conf, List.of(binary.toString(), "redis.conf"));
    }

    /**
     * @param downAfterMillis how long a node must be silent before the sentinel considers it down
     * @param failoverTimeoutMillis the sentinel's {@code failover-timeout}
     */
    void startSentinel(SentinelNode masterNode, long downAfterMillis, long failoverTimeoutMillis) {
        StringBuilder conf = common();
        String name = RedisSentinelSetup.MASTER_NAME;
        conf.append("sentinel resolve-hostnames no\n");
        conf.append("sentinel monitor ").append(name).append(' ').append(masterNode.host).append(' ')
                .append(masterNode.port).append(" 2\n");
        conf.append("sentinel down-after-milliseconds ").append(name).append(' ')
                .append(downAfterMillis).append('\n');
        conf.append("sentinel failover-timeout ").append(name).append(' ')
                .append(failoverTimeoutMillis).append('\n');
        conf.append("sentinel parallel-syncs ").append(name).append(" 1\n");
        start(conf, List.of(binary.toString(), "redis.conf", "--sentinel"));
    }

    private StringBuilder common() {
        return new StringBuilder()
                .append("bind ").append(host).append('\n')
                .append("protected-mode no\n")
                .append("daemonize no\n")
                .append("dir ").append(dir.toAbsolutePath()).append('\n')
                .append("loglevel notice\n")
                .append("logfile \"\"\n");
    }

    private void start(StringBuilder confWithoutPort, List<String> command) {
        boolean firstStart = port == 0;
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            if (firstStart) {
                port = TestFiles.freePort();
            }
            try {
                // Sentinel rewrites its file, so it is written fresh for every start.
                Files.writeString(dir.resolve("redis.conf"), "port " + port + "\n" + confWithoutPort);
            } catch (IOException e) {
                throw new UncheckedIOException("could not write " + kind + " config", e);
            }
            process = new ServerProcess(kind + "-" + port, segment == null ? command : segment.wrap(index, command),
                    dir);
            try {
                process.start(this::answersPing, START_TIMEOUT);
                return;
            } catch (IllegalStateException e) {
                last = e;
                if (!firstStart || !process.recentOutput().contains("Address already in use")) {
                    break;
                }
            }
        }
        throw last;
    }

    private boolean answersPing() {
        return "PONG".equals(tryExecute("PING"));
    }

    /** The reply, or {@code null} if the node cannot be reached or answers an error. */
    Object tryExecute(String... command) {
        try (RespConnection c = new RespConnection(host, port, null, null, null, 1_000)) {
            return c.execute(command);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    Object execute(String... command) {
        try (RespConnection c = new RespConnection(host, port, null, null, null, 5_000)) {
            return c.execute(command);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command[0] + " on " + this, e);
        }
    }

    String info(String section) {
        Object reply = tryExecute("INFO", section);
        return reply == null ? "" : reply.toString();
    }

    void close() {
        if (process != null) {
            if (process.isAlive()) {
                try {
                    signal(this, "-CONT");
                } catch (RuntimeException e) {
                    // It is killed next anyway.
                }
            }
            process.kill();
        }
        TestFiles.deleteRecursively(dir);
    }

    @Override
    public String toString() {
        return kind + " " + host + ":" + port;
    }

    /** Sends {@code signal} ({@code -STOP}, {@code -CONT}) to the node's process. */
    static void signal(SentinelNode node, String signal) {
        Path kill = ServerProcess.requireBinary("kill", RedisSentinelSetup.KILL_INSTALL_HINT);
        try {
            Process process = new ProcessBuilder(kill.toString(), signal, Long.toString(node.process.pid()))
                    .redirectErrorStream(true).start();
            if (process.waitFor() != 0) {
                throw new IllegalStateException("kill " + signal + " " + node.process.pid() + " failed: "
                        + new String(process.getInputStream().readAllBytes()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + node, e);
        }
    }
}
