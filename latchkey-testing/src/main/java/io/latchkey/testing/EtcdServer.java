package io.latchkey.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A real single-member {@code etcd} child process (Debian's {@code etcd-server} package) on free client and peer
 * ports of 127.0.0.1, with its data in its own temporary directory (in {@code /dev/shm} where available). {@link #kill()} and {@link #start()} simulate a
 * crash and a restart on the same ports with the same data (so revisions keep growing, like a real restart).
 *
 * <p>{@link #withTls} serves clients over TLS only ({@code https}, {@code etcds://} URIs), optionally asking them
 * for a certificate; its health is then read from a plain-HTTP metrics port.
 *
 * <p>Not thread-safe: drive it from one thread.
 */
public final class EtcdServer implements AutoCloseable {

    /** The install command named when {@code etcd} is missing. */
    public static final String INSTALL_HINT = "sudo apt-get install etcd-server";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private Path dir;
    private ServerProcess process;
    private int clientPort;
    private int peerPort;
    private int metricsPort;
    private TestCertificates tls;
    private boolean clientCertAuth;
    private String host = "127.0.0.1";
    private NetworkNamespace namespace;

    /** A server that is not started yet; call {@link #start()}. */
    public EtcdServer() {
    }

    /**
     * Serves clients over TLS with {@code certificates}' server certificate; with {@code clientCertAuth} a client
     * must present a certificate signed by their CA ({@code --client-cert-auth}). Call before the first
     * {@link #start()}.
     */
    public synchronized EtcdServer withTls(TestCertificates certificates, boolean clientCertAuth) {
        if (clientPort != 0) {
            throw new IllegalStateException("withTls must come before the first start()");
        }
        this.tls = certificates;
        this.clientCertAuth = clientCertAuth;
        return this;
    }

    /**
     * Runs the server inside {@code namespace}, listening on its {@link NetworkNamespace#address()} instead of
     * 127.0.0.1, so that cutting the namespace's link partitions it from every client. Call before the first
     * {@link #start()}; the caller closes the namespace after this server.
     */
    public synchronized EtcdServer inNamespace(NetworkNamespace namespace) {
        if (clientPort != 0) {
            throw new IllegalStateException("inNamespace must come before the first start()");
        }
        this.namespace = namespace;
        this.host = namespace.address();
        return this;
    }

    /** Creates and starts a server. */
    public static EtcdServer started() {
        return new EtcdServer().start();
    }

    /**
     * Starts the server (the first time on free ports, afterwards on the same ports and data) and waits until its
     * {@code /health} endpoint reports healthy. Does nothing if it runs.
     *
     * @throws IllegalStateException if {@code etcd} is not installed (naming {@link #INSTALL_HINT}) or does not start
     */
    public synchronized EtcdServer start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        Path binary = ServerProcess.requireBinary("etcd", INSTALL_HINT);
        if (dir == null) {
            dir = createDataDir();
        }
        boolean firstStart = clientPort == 0;
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            if (firstStart) {
                clientPort = TestFiles.freePort();
                peerPort = TestFiles.freePort();
                while (peerPort == clientPort) {
                    peerPort = TestFiles.freePort();
                }
                metricsPort = 0;
                if (tls != null) {
                    do {
                        metricsPort = TestFiles.freePort();
                    } while (metricsPort == clientPort || metricsPort == peerPort);
                }
            }
            String client = (tls == null ? "http://" : "https://") + host + ":" + clientPort;
            String peer = "http://" + host + ":" + peerPort;
            List<String> command = new java.util.ArrayList<>(List.of(binary.toString(),
                    "--name", "latchkey",
                    "--data-dir", dir.resolve("data").toAbsolutePath().toString(),
                    "--listen-client-urls", client,
                    "--advertise-client-urls", client,
                    "--listen-peer-urls", peer,
                    "--initial-advertise-peer-urls", peer,
                    "--initial-cluster", "latchkey=" + peer,
                    "--initial-cluster-state", "new",
                    "--log-level", "warn"));
            if (tls != null) {
                command.addAll(List.of("--cert-file", tls.serverCertificate().toString(),
                        "--key-file", tls.serverKey().toString(),
                        "--listen-metrics-urls", "http://" + host + ":" + metricsPort));
                if (clientCertAuth) {
                    command.addAll(List.of("--client-cert-auth", "--trusted-ca-file", tls.caCertificate().toString()));
                }
            }
            process = new ServerProcess("etcd-" + clientPort, namespace == null ? command : namespace.wrap(command),
                    dir);
            try {
                process.start(this::healthy, START_TIMEOUT);
                return this;
            } catch (IllegalStateException e) {
                last = e;
                if (!firstStart || !process.recentOutput().contains("address already in use")) {
                    break;
                }
                // Another process took a port between our probe and the bind: try two other ports.
                TestFiles.deleteRecursively(dir.resolve("data"));
                sleep(100);
            }
        }
        throw last;
    }

    /**
     * In memory ({@code /dev/shm}) where there is one: etcd fsyncs its WAL on every write, which on a shared CI disk
     * costs milliseconds per lock operation and says nothing about the lock.
     */
    private static Path createDataDir() {
        Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm)) {
            try {
                return Files.createTempDirectory(shm, "latchkey-etcd-");
            } catch (IOException e) {
                // fall back to the usual temporary directory
            }
        }
        return TestFiles.createTempDir("latchkey-etcd-");
    }

    private boolean healthy() {
        try {
            HttpURLConnection c = (HttpURLConnection) URI.create("http://" + host + ":" + (tls == null ? clientPort : metricsPort) + "/health")
                    .toURL().openConnection();
            c.setConnectTimeout(200);
            c.setReadTimeout(1000);
            try (InputStream in = c.getInputStream()) {
                String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                return c.getResponseCode() == 200 && body.contains("\"health\":\"true\"");
            } finally {
                c.disconnect();
            }
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Stops the server gracefully (SIGTERM); its ports and data stay for {@link #start()}. Idempotent. */
    public synchronized void stop() {
        if (process != null) {
            process.stop();
        }
    }

    /** Kills the server with SIGKILL, as a crash would; its ports and data stay for {@link #start()}. Idempotent. */
    public synchronized void kill() {
        if (process != null) {
            process.kill();
        }
    }

    /** Whether the server process runs. */
    public synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** Stops the server and deletes its directory. Idempotent. */
    @Override
    public synchronized void close() {
        stop();
        TestFiles.deleteRecursively(dir);
        dir = null;
    }

    /**
     * {@code http://127.0.0.1:<client port>} ({@code https://} with {@link #withTls}), what jetcd's
     * {@code Client.builder().endpoints(…)} takes.
     */
    public String endpoint() {
        return (tls == null ? "http://" : "https://") + host + ":" + clientPort;
    }

    /**
     * {@code etcd://127.0.0.1:<client port>} for {@code LockClient.connect}; with {@link #withTls},
     * {@code etcds://127.0.0.1:<client port>} without the query that names the CA and client certificate.
     */
    public String uri() {
        return (tls == null ? "etcd://" : "etcds://") + host + ":" + clientPort;
    }

    public String host() {
        return host;
    }

    public int port() {
        return clientPort;
    }

    /** The server's recent output, for failure messages. */
    public String recentOutput() {
        return process == null ? "" : process.recentOutput();
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "EtcdServer{" + endpoint() + "}";
    }
}
