package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.EtcdServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code etcd://user:password@host:port} against a real etcd with authentication on (its own server: enabling auth
 * would lock every other test out of the shared one). Wrong or missing credentials fail at connect with a message
 * that says so, within the operation timeout, and never show the password.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdAuthTest {

    private static final String PASSWORD = "s3cret:pa@ss";
    private static EtcdServer server;

    @BeforeAll
    static void startWithAuth() throws Exception {
        server = new EtcdServer().start();
        try (Client admin = Client.builder().endpoints(server.endpoint()).build()) {
            Auth auth = admin.getAuthClient();
            auth.userAdd(bytes("root"), bytes(PASSWORD)).get(10, TimeUnit.SECONDS);
            auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
            auth.authEnable().get(10, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }

    private static String uri(String userInfo) {
        return "etcd://" + userInfo + server.host() + ":" + server.port();
    }

    private static ClientOptions options() {
        return ClientOptions.builder().operationTimeout(Duration.ofSeconds(3)).build();
    }

    @Test
    void theRightCredentialsInTheUriLock() throws Exception {
        // the password's ':' and '@' are percent-encoded in the URI
        try (LockClient client = LockClient.connect(uri("root:s3cret%3Apa%40ss@"), options())) {
            LockLease lease = client.lock("auth-" + System.nanoTime()).acquire();
            assertThat(lease.fencingToken()).isPositive();
            lease.release();
        }
    }

    @Test
    void aWrongPasswordFailsAtConnectSayingSoWithoutShowingIt() {
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect(uri("root:notit-4711@"), options()))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("credentials").hasMessageContaining("root")
                .hasMessageNotContaining("notit-4711");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void noCredentialsOnAServerWithAuthFailsAtConnectSayingSo() {
        assertThatThrownBy(() -> LockClient.connect(uri(""), options()))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("credentials");
    }
}
