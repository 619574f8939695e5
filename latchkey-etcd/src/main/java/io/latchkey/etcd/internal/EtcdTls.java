package io.latchkey.etcd.internal;

import io.grpc.netty.GrpcSslContexts;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLException;

/**
 * The TLS context of an {@code etcds://} URI: the members' certificates checked against the URI's {@code ca} file or
 * the JVM's trust store, hostnames verified, and the client's own certificate when the URI names one. A file that is
 * missing or unreadable, or that is not PEM of the expected kind, fails with an {@link IllegalArgumentException}
 * naming the parameter and the file, before any connection is tried.
 */
public final class EtcdTls {

    private EtcdTls() {
    }

    /** The context for {@code uri}, which must be an {@code etcds://} URI. */
    public static SslContext context(EtcdUri uri) {
        SslContextBuilder builder = files(GrpcSslContexts.forClient(), uri);
        try {
            return builder.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalArgumentException(String.format("etcds URI %s: the TLS settings are unusable: %s", uri,
                    e.getMessage()), e);
        }
    }

    /** Sets the trust ({@code ca}) and the client certificate ({@code cert}, {@code key}) of {@code uri}. */
    static SslContextBuilder files(SslContextBuilder builder, EtcdUri uri) {
        if (uri.ca() != null) {
            readable("ca", uri.ca());
            try {
                builder.trustManager(uri.ca().toFile());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(String.format(
                        "etcds URI parameter ca=%s is not a PEM file of CA certificates: %s", uri.ca(),
                        e.getMessage()), e);
            }
        }
        if (uri.hasClientCertificate()) {
            readable("cert", uri.cert());
            readable("key", uri.key());
            try {
                builder.keyManager(uri.cert().toFile(), uri.key().toFile());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(String.format(
                        "etcds URI parameters cert=%s and key=%s are not a PEM certificate chain and its PKCS#8 PEM "
                                + "private key (convert with: openssl pkcs8 -topk8 -nocrypt -in key.pem): %s",
                        uri.cert(), uri.key(), e.getMessage()), e);
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
}
