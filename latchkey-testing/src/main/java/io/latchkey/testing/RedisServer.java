package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * A real {@code redis-server} (or {@code valkey-server}: {@link RedisBinary}) child process on a free port of
 * 127.0.0.1, in its own temporary directory, without persistence unless asked. Optionally with {@code requirepass}
 * plus an ACL user, or TLS only (on a certificate generated at start). Used directly by benchmarks and through {@link RedisServerExtension} by tests.
 *
 * <p>{@link #stop()} and {@link #start()} simulate a server going down and coming back on the same port (empty,
 * unless append-only persistence was enabled). Not thread-safe: drive it from one thread.
 */
public final class RedisServer implements AutoCloseable {

    /** The install command named when {@code redis-server} is missing. */
    public static final String INSTALL_HINT = "sudo apt-get install redis-server";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);

    private final RedisServerConfig config;
    private final RedisBinary binary;
    private Path dir;
    private TestCertificates certificates;
    private ServerProcess process;
    private int port;
    private String host = "127.0.0.1";
    private NetworkNamespace namespace;

    RedisServer(RedisServerConfig config, RedisBinary binary) {
        this.config = config;
        this.binary = binary;
    }

    /**
     * Runs the server inside {@code namespace}, listening on its {@link NetworkNamespace#address()} instead of
     * 127.0.0.1 (so that cutting the namespace's link partitions it from every client). Call before the first
     * {@link #start()}; the caller closes the namespace after this server.
     */
    public synchronized RedisServer inNamespace(NetworkNamespace namespace) {
        if (port != 0) {
            throw new IllegalStateException("inNamespace must be called before the first start()");
        }
        this.namespace = namespace;
        this.host = namespace.address();
        return this;
    }

    /**
     * A plain server: no password, no TLS, no persistence, of the {@linkplain RedisBinary#configured() configured}
     * binary. Call {@link #start()}.
     */
    public static RedisServer standalone() {
        return standalone(RedisBinary.configured());
    }

    /** A plain server of {@code binary} ({@code redis-server} or {@code valkey-server}). Call {@link #start()}. */
    public static RedisServer standalone(RedisBinary binary) {
        return new RedisServer(new RedisServerConfig(null, null, null, null, false, false), binary);
    }

    /** The server that {@code builder} describes. */
    static RedisServer of(RedisServerConfig config, RedisBinary binary) {
        return new RedisServer(config, binary);
    }

    /**
     * Starts the server (the first time on a free port, afterwards on the same port) and waits until it answers
     * PING. Does nothing if it runs.
     *
     * @throws IllegalStateException if the binary is not installed (naming its install command, such as
     *         {@link #INSTALL_HINT}) or does not start
     */
    public synchronized RedisServer start() {
        if (process != null && process.isAlive()) {
            return this;
        }
        Path executable = binary.require();
        if (dir == null) {
            dir = TestFiles.createTempDir("latchkey-redis-");
            if (config.tls()) {
                certificates = TestCertificates.generate(dir);
            }
        }
        boolean firstStart = port == 0;
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            if (firstStart) {
                port = TestFiles.freePort();
            }
            writeConfig();
            process = new ServerProcess(binary.binary() + "-" + port,
                    command(List.of(executable.toString(), "redis.conf")), dir);
            try {
                process.start(this::answersPing, START_TIMEOUT);
                return this;
            } catch (IllegalStateException e) {
                last = e;
                if (!process.recentOutput().contains("Address already in use")) {
                    break;
                }
                // Another process took the port between our probe and the bind (or the old socket lingers).
                sleep(100);
            }
        }
        throw last;
    }

    private List<String> command(List<String> command) {
        return namespace == null ? command : namespace.wrap(command);
    }

    private void writeConfig() {
        StringBuilder conf = new StringBuilder();
        conf.append("bind ").append(host).append('\n');
        conf.append("protected-mode no\n");
        conf.append("daemonize no\n");
        conf.append("dir ").append(dir.toAbsolutePath()).append('\n');
        conf.append("save \"\"\n");
        conf.append("appendonly ").append(config.appendOnly() ? "yes" : "no").append('\n');
        conf.append("loglevel notice\n");
        conf.append("logfile \"\"\n");
        if (config.tls()) {
            conf.append("port 0\n");
            conf.append("tls-port ").append(port).append('\n');
            conf.append("tls-cert-file ").append(certificates.serverCertificate().toAbsolutePath()).append('\n');
            conf.append("tls-key-file ").append(certificates.serverKey().toAbsolutePath()).append('\n');
            conf.append("tls-ca-cert-file ").append(certificates.caCertificate().toAbsolutePath()).append('\n');
            conf.append("tls-auth-clients no\n");
        } else {
            conf.append("port ").append(port).append('\n');
        }
        if (config.requirePass() != null) {
            conf.append("requirepass ").append(config.requirePass()).append('\n');
        }
        if (config.aclUser() != null) {
            conf.append("user ").append(config.aclUser()).append(" on >").append(config.aclPassword())
                    .append(' ').append(config.aclRules()).append('\n');
        }
        try {
            Files.writeString(dir.resolve("redis.conf"), conf);
        } catch (IOException e) {
            throw new UncheckedIOException("could not write redis.conf", e);
        }
    }

    private boolean answersPing() {
        try (RespConnection c = connect(200)) {
            return "PONG".equals(c.execute("PING"));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private RespConnection connect(int timeoutMillis) throws IOException {
        SSLContext tls = certificates == null ? null : certificates.sslContext();
        String user = config.aclUser();
        String password = user != null ? config.aclPassword() : config.requirePass();
        return new RespConnection(host, port, tls, user, password, timeoutMillis);
    }

    /** Stops the server gracefully (SIGTERM); its port stays reserved for {@link #start()}. Idempotent. */
    public synchronized void stop() {
        if (process != null) {
            process.stop();
        }
    }

    /** Kills the server with SIGKILL, as a crash would. Idempotent. */
    public synchronized void kill() {
        if (process != null) {
            process.kill();
        }
    }

    /**
     * Freezes the server process (SIGSTOP), as a long GC-like pause or a stopped VM would: connections stay open, the
     * kernel still accepts what clients send, and the server runs it all after {@link #thaw()}.
     */
    public synchronized void freeze() {
        signal("-STOP");
    }

    /** Lets a {@linkplain #freeze() frozen} server run again (SIGCONT). */
    public synchronized void thaw() {
        signal("-CONT");
    }

    private void signal(String signal) {
        if (process == null || !process.isAlive()) {
            throw new IllegalStateException("redis-server is not running");
        }
        java.nio.file.Path kill = ServerProcess.requireBinary("kill", RedisSentinelSetup.KILL_INSTALL_HINT);
        try {
            Process p = new ProcessBuilder(kill.toString(), signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            if (p.waitFor() != 0) {
                throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed: "
                        + new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling redis-server", e);
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
        certificates = null;
    }

    /**
     * Runs one command on a fresh connection (authenticated like {@link #uri()}) and returns the reply: a
     * {@code String}, {@code Long}, {@code List} or {@code null}.
     *
     * @throws IllegalStateException for an error reply
     * @throws UncheckedIOException if the server cannot be reached
     */
    public Object execute(String... command) {
        try (RespConnection c = connect(5_000)) {
            return c.execute(command);
        } catch (IOException e) {
            throw new UncheckedIOException("could not run " + command[0] + " on " + binary.binary() + " at " + host + ":"
                    + port, e);
        }
    }

    /** Deletes every key (FLUSHALL). */
    public void flushAll() {
        execute("FLUSHALL");
    }

    /** Makes the server hold every client's commands for {@code duration} (CLIENT PAUSE … ALL). */
    public void pauseClients(Duration duration) {
        execute("CLIENT", "PAUSE", Long.toString(duration.toMillis()), "ALL");
    }

    /** 127.0.0.1. */
    public String host() {
        return host;
    }

    /** The port (the TLS port for a TLS server); 0 before the first start. */
    public int port() {
        return port;
    }

    /**
     * A Latchkey/Lettuce URI for this server: {@code redis://127.0.0.1:port}, with the ACL user's (or the
     * {@code requirepass}) credentials when set, or {@code rediss://…} for TLS.
     */
    public String uri() {
        StringBuilder uri = new StringBuilder(config.tls() ? "rediss://" : "redis://");
        if (config.aclUser() != null) {
            uri.append(config.aclUser()).append(':').append(config.aclPassword()).append('@');
        } else if (config.requirePass() != null) {
            uri.append(':').append(config.requirePass()).append('@');
        }
        return uri.append(host).append(':').append(port).toString();
    }

    /** The ACL user, or {@code null}. */
    public String username() {
        return config.aclUser();
    }

    /** The ACL user's password, or {@code null}. */
    public String password() {
        return config.aclPassword();
    }

    /** The {@code requirepass} (the {@code default} user's password), or {@code null}. */
    public String requirePass() {
        return config.requirePass();
    }

    /** Which binary runs: {@code redis-server} or {@code valkey-server}. */
    public RedisBinary binary() {
        return binary;
    }

    /** Whether the server speaks TLS only. */
    public boolean tls() {
        return config.tls();
    }

    /** The generated certificates of a TLS server; fails for a plain one. */
    public TestCertificates certificates() {
        if (certificates == null) {
            throw new IllegalStateException("this redis-server was not started with TLS");
        }
        return certificates;
    }

    /** The server's directory (config, logs, data). */
    public Path directory() {
        return dir;
    }

    /** The server's recent output, for diagnostics. */
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
        return "RedisServer{" + binary.binary() + " " + host + ":" + port + (config.tls() ? ", tls" : "")
                + (config.aclUser() != null ? ", acl user " + config.aclUser() : "") + "}";
    }
}
