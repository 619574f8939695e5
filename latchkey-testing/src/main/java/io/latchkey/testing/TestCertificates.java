package io.latchkey.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A throw-away certificate authority, a server certificate for {@code localhost} / {@code 127.0.0.1} and a client
 * certificate (for servers that ask clients for one), made at test time with the {@code openssl} command line (EC
 * P-256 keys in PKCS#8 PEM, valid for two days), plus a PKCS#12 trust store holding the CA for Java clients.
 */
public final class TestCertificates {

    /** The password of {@link #trustStore()}. */
    public static final String TRUST_STORE_PASSWORD = "changeit";

    private final Path caCertificate;
    private final Path serverCertificate;
    private final Path serverKey;
    private final Path trustStore;
    private final Path clientCertificate;
    private final Path clientKey;

    private TestCertificates(Path dir) {
        this.caCertificate = dir.resolve("ca.crt");
        this.serverCertificate = dir.resolve("server.crt");
        this.serverKey = dir.resolve("server.key");
        this.trustStore = dir.resolve("truststore.p12");
        this.clientCertificate = dir.resolve("client.crt");
        this.clientKey = dir.resolve("client.key");
    }

    /**
     * Generates the CA, the server certificate and the trust store into {@code dir}.
     *
     * @throws IllegalStateException if {@code openssl} is missing (naming the install command) or fails
     */
    public static TestCertificates generate(Path dir) {
        ServerProcess.requireBinary("openssl", "sudo apt-get install openssl");
        TestCertificates certs = new TestCertificates(dir);
        try {
            Files.writeString(dir.resolve("server.ext"), "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                    + "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
                    + "extendedKeyUsage=serverAuth\n");
            openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-sha256", "-days", "2", "-subj", "/CN=Latchkey Test CA", "-keyout", "ca.key", "-out", "ca.crt");
            openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-sha256",
                    "-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr");
            openssl(dir, "x509", "-req", "-sha256", "-days", "2", "-in", "server.csr", "-CA", "ca.crt", "-CAkey",
                    "ca.key", "-CAcreateserial", "-extfile", "server.ext", "-out", "server.crt");
            Files.writeString(dir.resolve("client.ext"), "basicConstraints=CA:FALSE\n"
                    + "keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n");
            openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-sha256",
                    "-subj", "/CN=latchkey-client", "-keyout", "client.key", "-out", "client.csr");
            openssl(dir, "x509", "-req", "-sha256", "-days", "2", "-in", "client.csr", "-CA", "ca.crt", "-CAkey",
                    "ca.key", "-CAcreateserial", "-extfile", "client.ext", "-out", "client.crt");
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            try (InputStream in = Files.newInputStream(certs.caCertificate)) {
                Certificate ca = CertificateFactory.getInstance("X.509").generateCertificate(in);
                store.setCertificateEntry("latchkey-test-ca", ca);
            }
            try (OutputStream out = Files.newOutputStream(certs.trustStore)) {
                store.store(out, TRUST_STORE_PASSWORD.toCharArray());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not write test certificates", e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not build the test trust store", e);
        }
        return certs;
    }

    private static void openssl(Path dir, String... args) throws IOException {
        List<String> command = new java.util.ArrayList<>();
        command.add("openssl");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            byte[] output = p.getInputStream().readAllBytes();
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("openssl " + args[0] + " failed: " + new String(output));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running openssl", e);
        }
    }

    /** The CA certificate (PEM). */
    public Path caCertificate() {
        return caCertificate;
    }

    /** The server certificate (PEM), for {@code localhost} and {@code 127.0.0.1}. */
    public Path serverCertificate() {
        return serverCertificate;
    }

    /** The server's private key (PEM, unencrypted). */
    public Path serverKey() {
        return serverKey;
    }

    /** The client certificate (PEM), signed by the CA, for servers that check client certificates. */
    public Path clientCertificate() {
        return clientCertificate;
    }

    /** The client's private key (PKCS#8 PEM, unencrypted). */
    public Path clientKey() {
        return clientKey;
    }

    /** A PKCS#12 trust store holding the CA, password {@link #TRUST_STORE_PASSWORD}. */
    public Path trustStore() {
        return trustStore;
    }

    /** An SSL context that trusts only the test CA. */
    public SSLContext sslContext() {
        try (InputStream in = Files.newInputStream(trustStore)) {
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(in, TRUST_STORE_PASSWORD.toCharArray());
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(store);
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(null, tmf.getTrustManagers(), null);
            return context;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("could not load the test trust store", e);
        }
    }
}
