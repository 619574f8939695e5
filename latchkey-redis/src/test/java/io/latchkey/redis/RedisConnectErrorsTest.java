package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockException;
import io.latchkey.testing.EtcdServer;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A connect that fails names its cause in the top message, soon: a wrong or missing password, TLS against a plain
 * port and plain text against a TLS port, a server of another kind.
 */
class RedisConnectErrorsTest {

    @RegisterExtension
    static RedisServerExtension secured = RedisServerExtension.builder().requirePass("right-pass").build();

    @RegisterExtension
    static RedisServerExtension tls = RedisServerExtension.withTls();

    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private static ClientOptions options() {
        return ClientOptions.builder().operationTimeout(TIMEOUT).build();
    }

    @Test
    void aWrongPasswordFailsFastNamingTheAuthenticationFailure() {
        // the right password first: the driver's classes are loaded, so what is timed below is the connect alone
        LockClient.connect(secured.uri(), options()).close();
        String uri = "redis://:wrong-pass@127.0.0.1:" + secured.port();
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect(uri, options()))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("authentication failed")
                .hasMessageContaining("authentication failed (WRONGPASS")
                .hasMessageContaining("127.0.0.1:" + secured.port())
                .hasMessageNotContaining("wrong-pass");
        assertThat(millisSince(start)).as("fails at the server's answer, not at a timeout").isLessThan(1_000);
    }

    @Test
    void noPasswordWhereOneIsRequiredNamesTheAuthenticationFailure() {
        String uri = "redis://127.0.0.1:" + secured.port();
        assertThatThrownBy(() -> LockClient.connect(uri, options()))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("authentication")
                .hasMessageContaining("NOAUTH")
                .hasMessageContaining("the server wants a password: give it in the URI (redis://:PASSWORD@host:port");
    }

    @Test
    void tlsAgainstAPlainPortNamesTlsWithinTheTimeout() {
        String uri = "rediss://:right-pass@127.0.0.1:" + secured.port() + "?verifyPeer=NONE";
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect(uri, options()))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("TLS")
                .hasMessageContaining("does not speak TLS")
                .hasMessageNotContaining("right-pass");
        assertThat(millisSince(start)).as("within the timeout").isLessThan(TIMEOUT.toMillis() + 500);
    }

    @Test
    void plainTextAgainstATlsPortSaysToUseRediss() {
        String uri = "redis://127.0.0.1:" + tls.port();
        assertThatThrownBy(() -> LockClient.connect(uri, options()))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("speaks TLS: use rediss://");
    }

    @Test
    void aRedisUriAtAnEtcdServerSaysItIsNotARedisServer() {
        try (EtcdServer etcd = EtcdServer.started()) {
            String uri = "redis://127.0.0.1:" + etcd.port();
            long start = System.nanoTime();
            assertThatThrownBy(() -> LockClient.connect(uri, options()))
                    .isInstanceOf(LockException.class)
                    .hasMessageStartingWith("cannot connect to redis at 127.0.0.1:" + etcd.port()
                            + ": not a server of the expected kind");
            assertThat(millisSince(start)).as("within the timeout").isLessThan(TIMEOUT.toMillis() + 500);
        }
    }

    private static long millisSince(long start) {
        return (System.nanoTime() - start) / 1_000_000;
    }
}
