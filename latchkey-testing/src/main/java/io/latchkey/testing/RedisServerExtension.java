package io.latchkey.testing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Runs a real {@code redis-server} (or {@code valkey-server}, see {@link RedisBinary}) for a test class (static
 * field) or for each test (instance field):
 *
 * <pre>{@code
 * @RegisterExtension
 * static RedisServerExtension redis = RedisServerExtension.standalone();
 *
 * @Test
 * void locks() {
 *     try (LockClient client = LockClient.connect(redis.uri())) { ... }
 * }
 * }</pre>
 *
 * <p>A missing {@code redis-server} binary fails the test with the install command
 * ({@value RedisServer#INSTALL_HINT}, or {@code scripts/install-test-servers.sh}); it is never skipped. A test
 * may {@link #stop()} and {@link #start()} the server to simulate an outage; a class-level server stopped by
 * one test is started again (empty) before the next.
 */
public final class RedisServerExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final RedisServer server;
    private boolean perClass;

    private RedisServerExtension(RedisServerConfig config, RedisBinary binary) {
        this.server = RedisServer.of(config, binary);
    }

    /** A plain server: no password, no TLS, no persistence. */
    public static RedisServerExtension standalone() {
        return builder().build();
    }

    /**
     * A server with {@code requirepass} ({@code default-secret}) and an ACL user {@code latchkey} / {@code secret}
     * allowed everything; {@link #uri()} carries the ACL user's credentials.
     */
    public static RedisServerExtension withAcl() {
        return builder().requirePass("default-secret").aclUser("latchkey", "secret").build();
    }

    /**
     * A TLS-only server ({@code port 0}, {@code tls-port}) on a certificate for 127.0.0.1 signed by a CA made at
     * start; clients trust it through {@link #trustStore()}.
     */
    public static RedisServerExtension withTls() {
        return builder().tls().build();
    }

    /** A builder for other combinations. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        perClass = true;
        server.start();
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        // Per-test registration starts here; per-class restarts a server a previous test stopped.
        server.start();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (!perClass) {
            server.close();
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        server.close();
    }

    /** The underlying server. */
    public RedisServer server() {
        return server;
    }

    /** @see RedisServer#uri() */
    public String uri() {
        return server.uri();
    }

    /** 127.0.0.1. */
    public String host() {
        return server.host();
    }

    /** The server's port (the TLS port for a TLS server). */
    public int port() {
        return server.port();
    }

    /** Starts the server again on the same port after {@link #stop()} (empty: there is no persistence). */
    public void start() {
        server.start();
    }

    /** Stops the server (SIGTERM), as an outage would. */
    public void stop() {
        server.stop();
    }

    /** Kills the server (SIGKILL), as a crash would. */
    public void kill() {
        server.kill();
    }

    /** Deletes every key. */
    public void flushAll() {
        server.flushAll();
    }

    /** @see RedisServer#execute(String...) */
    public Object execute(String... command) {
        return server.execute(command);
    }

    /** @see RedisServer#freeze() */
    public void freeze() {
        server.freeze();
    }

    /** @see RedisServer#thaw() */
    public void thaw() {
        server.thaw();
    }

    /** @see RedisServer#pauseClients(Duration) */
    public void pauseClients(Duration duration) {
        server.pauseClients(duration);
    }

    /** The ACL user, or {@code null}. */
    public String username() {
        return server.username();
    }

    /** The ACL user's password, or {@code null}. */
    public String password() {
        return server.password();
    }

    /** The PKCS#12 trust store holding the test CA of a TLS server (password {@link #trustStorePassword()}). */
    public Path trustStore() {
        return server.certificates().trustStore();
    }

    /** The trust store's password. */
    public String trustStorePassword() {
        return TestCertificates.TRUST_STORE_PASSWORD;
    }

    /** The test CA certificate (PEM) of a TLS server. */
    public Path caCertificate() {
        return server.certificates().caCertificate();
    }

    @Override
    public String toString() {
        return server.toString();
    }

    /** Builds a {@link RedisServerExtension}. */
    public static final class Builder {
        private String requirePass;
        private String aclUser;
        private String aclPassword;
        private String aclRules;
        private boolean tls;
        private boolean appendOnly;
        private RedisBinary binary;

        private Builder() {
        }

        /** Sets the {@code default} user's password. */
        public Builder requirePass(String password) {
            this.requirePass = Objects.requireNonNull(password, "password");
            return this;
        }

        /** Adds an ACL user allowed every command, key and channel; {@code uri()} then logs in as it. */
        public Builder aclUser(String user, String password) {
            return aclUser(user, password, RedisServerConfig.ALL);
        }

        /**
         * Adds an ACL user with the given rules, such as {@code "~* +@all"} (no channels: Redis 7's default for new
         * users); {@code uri()} then logs in as it.
         */
        public Builder aclUser(String user, String password, String rules) {
            this.aclUser = Objects.requireNonNull(user, "user");
            this.aclPassword = Objects.requireNonNull(password, "password");
            this.aclRules = Objects.requireNonNull(rules, "rules");
            return this;
        }

        /** Serves TLS only, on a generated certificate. */
        public Builder tls() {
            this.tls = true;
            return this;
        }

        /** Enables append-only persistence, so that data survives {@code stop()}/{@code start()}. */
        public Builder appendOnly() {
            this.appendOnly = true;
            return this;
        }

        /**
         * Runs {@code binary} ({@code redis-server} or {@code valkey-server}) rather than the
         * {@linkplain RedisBinary#configured() configured} one.
         */
        public Builder binary(RedisBinary binary) {
            this.binary = Objects.requireNonNull(binary, "binary");
            return this;
        }

        public RedisServerExtension build() {
            return new RedisServerExtension(new RedisServerConfig(requirePass, aclUser, aclPassword, aclRules, tls,
                    appendOnly), binary != null ? binary : RedisBinary.configured());
        }
    }
}
