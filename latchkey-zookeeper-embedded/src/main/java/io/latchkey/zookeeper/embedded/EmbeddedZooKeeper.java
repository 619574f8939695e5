package io.latchkey.zookeeper.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Objects;
import java.util.stream.Stream;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import java.io.File;
import org.apache.zookeeper.server.ContainerManager;
import org.apache.zookeeper.server.RequestProcessor;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/**
 * A real, standalone ZooKeeper server running inside this JVM on a loopback port, with its data in a directory;
 * what the CLI uses when no backend is given, and what the tests run against.
 *
 * <pre>{@code
 * try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
 *      LockClient client = LockClient.connect(zk.uri())) {
 *     ...
 * }
 * }</pre>
 *
 * <p>{@link #close()} stops the server and deletes the data directory if this class created it. Only the client
 * port is opened (no admin HTTP endpoint), so several servers can run in one JVM.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {

    private final ServerCnxnFactory server;
    private final ContainerManager reaper;
    private final int port;
    private final Path dataDir;
    private final boolean ownsDataDir;
    private final AtomicBoolean closed = new AtomicBoolean();

    private EmbeddedZooKeeper(ServerCnxnFactory server, ContainerManager reaper, int port, Path dataDir,
                              boolean ownsDataDir) {
        this.server = server;
        this.reaper = reaper;
        this.port = port;
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
    }

    /**
     * Starts a server on a free port with a temporary data directory, and waits until it accepts connections.
     *
     * @return the running server, which the caller closes
     * @throws UncheckedIOException if the temporary data directory cannot be created
     */
    public static EmbeddedZooKeeper start() {
        return builder().start();
    }

    /** {@return a new builder for a server with a given port, data directory or tick time} */
    public static Builder builder() {
        return new Builder();
    }

    /** {@return the client port, on the loopback address} */
    public int port() {
        return port;
    }

    /** {@return the connect string {@code 127.0.0.1:port}, for ZooKeeper and Curator clients} */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    /** {@return the URI {@code zookeeper://127.0.0.1:port}, for {@link io.latchkey.LockClient#connect(String)}} */
    public String uri() {
        return "zookeeper://" + connectString();
    }

    /**
     * Runs the server's container check now, as it does every {@code znode.container.checkIntervalMs} (60 s by
     * default, {@link Builder#containerCheckInterval}): empty container nodes that once had children (the lock paths
     * of free locks) are deleted, at most {@code znode.container.maxPerMinute} (10,000 by default) per minute, so
     * this call takes about 6 ms per deleted node at the default rate. The deletes are requests to the server: they
     * may land shortly after this returns. A parent emptied by these deletes goes on the next check.
     *
     * @throws InterruptedException if interrupted while pacing the deletes
     */
    public void reapEmptyContainers() throws InterruptedException {
        reaper.checkContainers();
    }

    /** {@return the directory where the server keeps its snapshots and transaction log} */
    public Path dataDir() {
        return dataDir;
    }

    /** Stops the server; deletes the data directory if it was a temporary one. Idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        reaper.stop();
        server.shutdown();
        if (ownsDataDir) {
            deleteTree(dataDir);
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is harmless
        }
    }

    @Override
    public String toString() {
        return "EmbeddedZooKeeper{" + connectString() + ", dataDir=" + dataDir + "}";
    }

    /** Builds an {@link EmbeddedZooKeeper}; not thread-safe. */
    public static final class Builder {
        private int port;
        private Path dataDir;
        private Duration tickTime = Duration.ofMillis(2000);
        private Duration maxSessionTimeout = Duration.ofSeconds(60);
        private Duration containerCheckInterval = Duration.ofMillis(
                Integer.getInteger("znode.container.checkIntervalMs", 60_000));

        private Builder() {
        }

        /**
         * Sets the client port; 0 (the default) lets the server pick a free one when it binds.
         *
         * @param port 0 to 65535
         * @return this builder
         * @throws IllegalArgumentException if {@code port} is outside 0 to 65535
         */
        public Builder port(int port) {
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException(String.format("port must be 0-65535 but was %d", port));
            }
            this.port = port;
            return this;
        }

        /**
         * Sets the data directory, created if missing and kept on close; by default a temporary one is created and
         * deleted on close.
         *
         * @param dataDir where the server keeps its snapshots and transaction log; not null
         * @return this builder
         */
        public Builder dataDir(Path dataDir) {
            this.dataDir = Objects.requireNonNull(dataDir, "dataDir");
            return this;
        }

        /**
         * Sets ZooKeeper's basic time unit (default 2 s): sessions time out after at least two ticks, so tests use a
         * short one.
         *
         * @param tickTime the tick, at least 1 ms; not null
         * @return this builder
         * @throws IllegalArgumentException if {@code tickTime} is shorter than 1 ms
         */
        public Builder tickTime(Duration tickTime) {
            Objects.requireNonNull(tickTime, "tickTime");
            if (tickTime.toMillis() < 1) {
                throw new IllegalArgumentException(String.format("tickTime must be at least 1ms but was %s", tickTime));
            }
            this.tickTime = tickTime;
            return this;
        }

        /**
         * Sets the longest session timeout the server grants (default 60 s); clients asking for more get this.
         *
         * @param maxSessionTimeout the bound; not null
         * @return this builder
         */
        public Builder maxSessionTimeout(Duration maxSessionTimeout) {
            this.maxSessionTimeout = Objects.requireNonNull(maxSessionTimeout, "maxSessionTimeout");
            return this;
        }

        /**
         * How often the server deletes empty container nodes (the lock paths of free locks): 60 s by default, or
         * the system property {@code znode.container.checkIntervalMs}, as on a real server.
         *
         * @param interval the period of the container check, at least 1 ms; not null
         * @return this builder
         * @throws IllegalArgumentException if {@code interval} is shorter than 1 ms
         */
        public Builder containerCheckInterval(Duration interval) {
            Objects.requireNonNull(interval, "interval");
            if (interval.toMillis() < 1) {
                throw new IllegalArgumentException(String.format(
                        "containerCheckInterval must be at least 1ms but was %s", interval));
            }
            this.containerCheckInterval = interval;
            return this;
        }

        /**
         * Starts the server and waits until it accepts connections.
         *
         * @return the running server, which the caller closes
         * @throws UncheckedIOException if the port is taken or the data directory cannot be written
         */
        public EmbeddedZooKeeper start() {
            boolean owns = dataDir == null;
            Path dir = null;
            ServerCnxnFactory server = null;
            ReapingServer zk = null;
            try {
                dir = owns ? Files.createTempDirectory("latchkey-zookeeper-") : Files.createDirectories(dataDir);
                zk = new ReapingServer(dir.toFile(), (int) tickTime.toMillis());
                zk.setMinSessionTimeout((int) (2 * tickTime.toMillis()));
                zk.setMaxSessionTimeout((int) maxSessionTimeout.toMillis());
                // Port 0 is bound by the server itself: no window in which another process can take a probed port.
                server = ServerCnxnFactory.createFactory(
                        new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0);
                server.startup(zk);
                // as a real server does: empty container nodes (lock paths nobody uses any more) are deleted
                ContainerManager reaper = new ContainerManager(zk.getZKDatabase(), zk.first(),
                        (int) Math.min(Integer.MAX_VALUE, containerCheckInterval.toMillis()),
                        Integer.getInteger("znode.container.maxPerMinute", 10_000));
                reaper.start();
                return new EmbeddedZooKeeper(server, reaper, server.getLocalPort(), dir, owns);
            } catch (IOException e) {
                abandon(server, zk, dir, owns);
                throw new UncheckedIOException("could not start an embedded ZooKeeper server", e);
            } catch (InterruptedException e) {
                abandon(server, zk, dir, owns);
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting an embedded ZooKeeper server", e);
            } catch (RuntimeException e) {
                abandon(server, zk, dir, owns);
                throw new IllegalStateException("could not start an embedded ZooKeeper server: " + e, e);
            }
        }

        /** A failed start leaves no listening socket, server thread or temporary directory behind. */
        private static void abandon(ServerCnxnFactory server, ZooKeeperServer zk, Path dir, boolean owns) {
            if (server != null) {
                server.shutdown();
            }
            if (zk != null && zk.isRunning()) {
                zk.shutdown();
            }
            if (owns && dir != null) {
                deleteTree(dir);
            }
        }
    }

    /** A standalone server that lets the container reaper reach its first request processor. */
    private static final class ReapingServer extends ZooKeeperServer {
        ReapingServer(File dir, int tickTime) throws IOException {
            super(dir, dir, tickTime);
        }

        RequestProcessor first() {
            return firstProcessor;
        }
    }
}
