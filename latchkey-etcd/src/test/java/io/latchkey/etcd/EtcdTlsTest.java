package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.EtcdServer;
import io.latchkey.testing.TestCertificates;
import io.latchkey.testing.TestFiles;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code etcds://} against a real etcd that serves clients over TLS only and asks them for a certificate
 * ({@code --client-cert-auth}): the URI's {@code ca}, {@code cert} and {@code key} make a working client; each thing
 * missing or wrong fails at connect, within the operation timeout, with a message that says what.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdTlsTest {

    private static Path dir;
    private static TestCertificates certs;
    private static EtcdServer server;

    @BeforeAll
    static void startWithTls() {
        dir = TestFiles.createTempDir("latchkey-etcd-tls-");
        certs = TestCertificates.generate(dir);
        server = new EtcdServer().withTls(certs, true).start();
    }

    @AfterAll
    static void stop() {
        server.close();
        TestFiles.deleteRecursively(dir);
    }

    private static ClientOptions options() {
        return ClientOptions.builder().operationTimeout(Duration.ofSeconds(3)).build();
    }

    private static String fullUri() {
        return server.uri() + "?ca=" + certs.caCertificate() + "&cert=" + certs.clientCertificate() + "&key="
                + certs.clientKey();
    }

    @Test
    void theCaAndClientCertificateInTheUriLockAndCount() throws Exception {
        assertThat(server.uri()).startsWith("etcds://");
        try (LockClient client = LockClient.connect(fullUri(), options())) {
            assertThat(client).isInstanceOf(EtcdLockClient.class);
            LockLease lease = client.lock("tls-" + System.nanoTime()).acquire();
            assertThat(lease.fencingToken()).isPositive();
            lease.release();
            DistributedSemaphore semaphore = client.semaphore("tls-sem-" + System.nanoTime());
            assertThat(semaphore.trySetPermits(1)).isTrue();
            assertThat(semaphore.tryAcquire()).isTrue();
            assertThat(semaphore.tryAcquire()).isFalse();
            semaphore.release();
        }
    }

    @Test
    void withoutTheCaTheJvmTrustStoreRefusesTheServerCertificateSayingSo() {
        String uri = server.uri() + "?cert=" + certs.clientCertificate() + "&key=" + certs.clientKey();
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect(uri, options()))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("TLS handshake");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void withoutAClientCertificateAServerThatAsksForOneRefusesSayingSo() {
        String uri = server.uri() + "?ca=" + certs.caCertificate();
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect(uri, options()))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("TLS handshake");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void plainEtcdAgainstATlsServerFailsWithinTheTimeoutNamingEtcds() {
        String uri = "etcd://" + server.host() + ":" + server.port();
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect(uri, options()))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("etcds://");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    }

    @Test
    void badTlsParametersAreRejectedNamingTheParameter() {
        String base = server.uri();
        assertThatThrownBy(() -> LockClient.connect(base + "?ca=/no/such/ca.pem", options()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ca=/no/such/ca.pem");
        assertThatThrownBy(() -> LockClient.connect(base + "?cert=" + certs.clientCertificate(), options()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("both cert and key");
        assertThatThrownBy(() -> LockClient.connect(base + "?trust=x", options()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'trust'");
        assertThatThrownBy(() -> LockClient.connect(base + "?ca=", options()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs a file path");
        assertThatThrownBy(() -> LockClient.connect(base + "?ca=" + certs.serverKey(), options()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ca=");
        assertThatThrownBy(() -> LockClient.connect(
                "etcd://" + server.host() + ":" + server.port() + "?ca=" + certs.caCertificate(), options()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("etcds://");
    }
}
