package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.util.List;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The words of a failed connect come from anywhere in the chain: the deepest match is the server's own. */
class ConnectFailuresTest {

    @Test
    void authenticationIsNamedWithTheServersWordsWithoutTheWrappersClassName() {
        Exception server = new IllegalStateException("WRONGPASS invalid username-password pair");
        Exception failure = new RuntimeException("Unable to connect to 127.0.0.1:6379",
                new RuntimeException("java.lang.IllegalStateException: WRONGPASS invalid username-password pair", server));
        assertThat(ConnectFailures.classify(failure)).isEqualTo(ConnectFailures.Cause.AUTHENTICATION);
        assertThat(ConnectFailures.describe(failure))
                .isEqualTo("authentication failed (WRONGPASS invalid username-password pair)");
    }

    @Test
    void aMissingPasswordIsAnAuthenticationFailure() {
        Exception failure = new RuntimeException(new RuntimeException("The server requested password-based "
                + "authentication, but no password was provided by plugin null"));
        assertThat(ConnectFailures.describe(failure)).startsWith("authentication failed (The server requested "
                + "password-based authentication");
    }

    @Test
    void aWrapperWithoutAMessageGivesItsCausesWords() {
        Exception failure = new RuntimeException((String) null,
                new IllegalStateException("Cannot provide redisAddress using sentinel for masterId other"));
        assertThat(ConnectFailures.unavailable("redis at x:1", "connect", failure).getMessage())
                .isEqualTo("redis at x:1: connect failed: Cannot provide redisAddress using sentinel for masterId other");
    }

    @Test
    void tlsComesBeforeAuthenticationWhenAProbeQuotesTheServersNoauth() {
        Exception failure = new RuntimeException(
                "TLS handshake failed: the server does not speak TLS: it answered PING in plain text (-NOAUTH …)");
        assertThat(ConnectFailures.classify(failure)).isEqualTo(ConnectFailures.Cause.TLS);
        assertThat(ConnectFailures.describe(failure)).startsWith("TLS handshake failed: the server does not speak TLS");
        assertThat(ConnectFailures.describe(new RuntimeException(new SSLHandshakeException("PKIX path building failed"))))
                .isEqualTo("TLS handshake failed (PKIX path building failed)");
    }

    @Test
    void refusedUnknownHostAndWrongServer() {
        assertThat(ConnectFailures.describe(new RuntimeException(new ConnectException("Connection refused"))))
                .isEqualTo("connection refused");
        assertThat(ConnectFailures.classify(new RuntimeException(new UnknownHostException("nohost"))))
                .isEqualTo(ConnectFailures.Cause.UNKNOWN_HOST);
        assertThat(ConnectFailures.describe(new RuntimeException("Invalid first byte: 60 (<)")))
                .isEqualTo("not a server of the expected kind (Invalid first byte: 60 (<))");
        assertThat(ConnectFailures.classify(new RuntimeException("did not answer within 5000 ms"))).isNull();
        assertThat(ConnectFailures.describe(new RuntimeException((String) null))).isNull();
    }

    @Test
    void refusedEverywhereOnlyWhenNothingListens() throws Exception {
        int free;
        try (ServerSocket socket = new ServerSocket(0)) {
            free = socket.getLocalPort();
            assertThat(ConnectFailures.refusedEverywhere(List.of(
                    InetSocketAddress.createUnresolved("127.0.0.1", free)), 1_000)).as("listening").isFalse();
        }
        assertThat(ConnectFailures.refusedEverywhere(List.of(
                InetSocketAddress.createUnresolved("127.0.0.1", free)), 1_000)).as("closed").isTrue();
        assertThat(ConnectFailures.refusedEverywhere(List.of(), 1_000)).isFalse();
    }
}
