package io.latchkey.etcd.internal;

import io.grpc.netty.GrpcSslContexts;
import io.latchkey.core.ServerUri;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * A parsed {@code etcd://[user:password@]host:port[,host:port…]} or
 * {@code etcds://[user:password@]host:port[,host:port…][?ca=…&cert=…&key=…]} URI. {@code etcds} is TLS: the
 * members' certificates are checked against {@code ca} (PEM CA certificates) or else the JVM's trust store;
 * {@code cert} and {@code key} (PEM certificate chain and PKCS#8 PEM private key, both or neither) are the client's
 * certificate when the members ask for one. Query paths are percent-decoded; {@code null} stands for each part not
 * given. {@code endpoints} are what jetcd takes ({@code http[s]://host:port}). {@link #toString()} hides the password.
 */
public record EtcdUri(List<String> endpoints, String user, String password, boolean tls, Path ca, Path cert,
                      Path key) {

    public static final String PREFIX = "etcd://";
    public static final String TLS_PREFIX = "etcds://";

    public static EtcdUri parse(String uri) {
        boolean tls;
        if (uri != null && uri.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            tls = false;
        } else if (uri != null && uri.regionMatches(true, 0, TLS_PREFIX, 0, TLS_PREFIX.length())) {
            tls = true;
        } else {
            throw new IllegalArgumentException("an etcd URI must start with " + PREFIX + " (or " + TLS_PREFIX
                    + " for TLS)");
        }
        ServerUri parsed = ServerUri.parse(uri, (tls ? TLS_PREFIX : PREFIX).length(), "etcd");
        if (!parsed.path().isEmpty()) {
            throw new IllegalArgumentException(String.format(
                    "etcd URI must be %shost:port[,host:port…] without a path but was %s",
                    tls ? TLS_PREFIX : PREFIX, ServerUri.redact(uri)));
        }
        Path ca = null;
        Path cert = null;
        Path key = null;
        if (parsed.query() != null) {
            if (!tls) {
                throw new IllegalArgumentException(String.format(
                        "etcd URI takes no query (ca, cert and key are for etcds://, TLS) but was %s",
                        ServerUri.redact(uri)));
            }
            for (String pair : parsed.query().split("&", -1)) {
                int eq = pair.indexOf('=');
                String param = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                if (value.isEmpty()) {
                    throw new IllegalArgumentException(String.format(
                            "etcds URI parameter '%s' needs a file path (…?%s=/path/file.pem) in %s", param, param,
                            ServerUri.redact(uri)));
                }
                switch (param.toLowerCase(Locale.ROOT)) {
                    case "ca" -> ca = Path.of(value);
                    case "cert" -> cert = Path.of(value);
                    case "key" -> key = Path.of(value);
                    default -> throw new IllegalArgumentException(String.format(
                            "etcds URI parameter '%s' is unknown (known: ca, cert, key) in %s", param,
                            ServerUri.redact(uri)));
                }
            }
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException(String.format(
                        "etcds URI needs both cert and key (a client certificate and its private key) or neither: %s",
                        ServerUri.redact(uri)));
            }
        }
        List<String> endpoints = parsed.hosts().stream().map(hp -> (tls ? "https://" : "http://") + hp).toList();
        return new EtcdUri(endpoints, parsed.user(), parsed.password(), tls, ca, cert, key);
    }

    /** The members' addresses, unresolved (resolved by whoever connects to them). */
    public List<InetSocketAddress> addresses() {
        return endpoints.stream().map(URI::create)
                .map(u -> InetSocketAddress.createUnresolved(u.getHost(), u.getPort())).toList();
    }

    public boolean hasCredentials() {
        return user != null;
    }

    /** Whether the client presents a certificate of its own ({@code cert} and {@code key}). */
    public boolean hasClientCertificate() {
        return cert != null;
    }

    /**
     * The TLS context of this {@code etcds://} URI: the members' certificates checked against {@code ca} or the
     * JVM's trust store, hostnames verified, and the client's own certificate if the URI names one. A file that is
     * missing or unreadable, or that is not PEM of the expected kind, fails with an {@link IllegalArgumentException}
     * naming the parameter and the file, before any connection is tried.
     */
    public SslContext sslContext() {
        SslContextBuilder builder = withFiles(GrpcSslContexts.forClient());
        try {
            return builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(String.format("etcds URI %s: the TLS settings are unusable: %s", this,
                    e.getMessage()), e);
        }
    }

    /** The same settings as a JDK context, for a probe's own socket; {@code trustAll}: any server, no files. */
    SSLContext jdkContext(boolean trustAll) throws SSLException {
        SslContextBuilder builder = SslContextBuilder.forClient().sslProvider(SslProvider.JDK);
        return ((JdkSslContext) (trustAll ? builder.trustManager(InsecureTrustManagerFactory.INSTANCE)
                : withFiles(builder)).build()).context();
    }

    private SslContextBuilder withFiles(SslContextBuilder builder) {
        if (ca != null) {
            readable("ca", ca);
            try {
                builder.trustManager(ca.toFile());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(String.format(
                        "etcds URI parameter ca=%s is not a PEM file of CA certificates: %s", ca,
                        e.getMessage()), e);
            }
        }
        if (hasClientCertificate()) {
            readable("cert", cert);
            readable("key", key);
            try {
                builder.keyManager(cert.toFile(), key.toFile());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(String.format(
                        "etcds URI parameters cert=%s and key=%s are not a PEM certificate chain and its PKCS#8 PEM "
                                + "private key (convert with: openssl pkcs8 -topk8 -nocrypt -in key.pem): %s",
                        cert, key, e.getMessage()), e);
            }
        }
        return builder;
    }

    private static void readable(String param, Path file) {
        if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
            throw new IllegalArgumentException(String.format(
                    "etcds URI parameter %s=%s: no such readable file", param, file));
        }
    }

    @Override
    public String toString() {
        return "EtcdUri{" + (user == null ? "" : user + ":****@") + String.join(",", endpoints)
                + (ca == null ? "" : ", ca=" + ca) + (cert == null ? "" : ", cert=" + cert) + "}";
    }
}
