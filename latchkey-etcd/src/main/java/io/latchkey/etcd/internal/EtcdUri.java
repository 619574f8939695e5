package io.latchkey.etcd.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A parsed {@code etcd://[user:password@]host:port[,host:port…]} or
 * {@code etcds://[user:password@]host:port[,host:port…][?ca=…&cert=…&key=…]} URI. {@code etcds} is TLS: the
 * members' certificates are checked against {@code ca} (a PEM file of the trusted CA certificates) or, without it,
 * the JVM's trust store ({@code javax.net.ssl.trustStore}); {@code cert} and {@code key} (PEM certificate chain and
 * PKCS#8 PEM private key, both or neither) are the client's certificate when the members ask for one
 * ({@code --client-cert-auth}). Paths in the query are percent-decoded. {@link #toString()} never shows the password.
 *
 * @param endpoints what jetcd takes: {@code http://host:port} or {@code https://host:port} per member
 * @param user the etcd user, or {@code null}
 * @param password the etcd password, or {@code null}
 * @param tls whether the URI was {@code etcds://}
 * @param ca the trusted CA certificates (PEM), or {@code null} for the JVM's trust store
 * @param cert the client's certificate chain (PEM), or {@code null}
 * @param key the client's private key (PKCS#8 PEM), or {@code null}
 */
public record EtcdUri(List<String> endpoints, String user, String password, boolean tls, Path ca, Path cert,
                      Path key) {

    public static final String PREFIX = "etcd://";
    public static final String TLS_PREFIX = "etcds://";

    /** An {@code etcd://} URI without TLS. */
    public EtcdUri(List<String> endpoints, String user, String password) {
        this(endpoints, user, password, false, null, null, null);
    }

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
        String rest = uri.substring(tls ? TLS_PREFIX.length() : PREFIX.length());
        String user = null;
        String password = null;
        int query = rest.indexOf('?');
        String queryText = null;
        if (query >= 0) {
            queryText = rest.substring(query + 1);
            rest = rest.substring(0, query);
        }
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("etcd URI credentials must be user:password");
            }
            user = decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
        }
        if (rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        if (rest.isEmpty()) {
            throw new IllegalArgumentException(String.format("etcd URI has no host: %s", redact(uri)));
        }
        if (rest.contains("/") || rest.contains("#")) {
            throw new IllegalArgumentException(String.format(
                    "etcd URI must be %shost:port[,host:port…] without a path but was %s",
                    tls ? TLS_PREFIX : PREFIX, redact(uri)));
        }
        Path ca = null;
        Path cert = null;
        Path key = null;
        if (queryText != null) {
            if (!tls) {
                throw new IllegalArgumentException(String.format(
                        "etcd URI takes no query (ca, cert and key are for etcds://, TLS) but was %s", redact(uri)));
            }
            for (String pair : queryText.split("&", -1)) {
                int eq = pair.indexOf('=');
                String param = eq < 0 ? pair : pair.substring(0, eq);
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                if (value.isEmpty()) {
                    throw new IllegalArgumentException(String.format(
                            "etcds URI parameter '%s' needs a file path (…?%s=/path/file.pem) in %s", param, param,
                            redact(uri)));
                }
                switch (param.toLowerCase(Locale.ROOT)) {
                    case "ca" -> ca = Path.of(value);
                    case "cert" -> cert = Path.of(value);
                    case "key" -> key = Path.of(value);
                    default -> throw new IllegalArgumentException(String.format(
                            "etcds URI parameter '%s' is unknown (known: ca, cert, key) in %s", param, redact(uri)));
                }
            }
            if ((cert == null) != (key == null)) {
                throw new IllegalArgumentException(String.format(
                        "etcds URI needs both cert and key (a client certificate and its private key) or neither: %s",
                        redact(uri)));
            }
        }
        List<String> endpoints = new ArrayList<>();
        for (String hp : rest.split(",", -1)) {
            int colon = hp.lastIndexOf(':');
            if (colon <= 0 || colon == hp.length() - 1) {
                throw new IllegalArgumentException(String.format(
                        "etcd URI host must be host:port but was '%s' in %s", hp, redact(uri)));
            }
            String port = hp.substring(colon + 1);
            try {
                int p = Integer.parseInt(port);
                if (p < 1 || p > 65535) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(String.format(
                        "etcd URI port must be 1-65535 but was '%s' in %s", port, redact(uri)));
            }
            endpoints.add((tls ? "https://" : "http://") + hp);
        }
        return new EtcdUri(List.copyOf(endpoints), user, password, tls, ca, cert, key);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** The URI with its password replaced, for messages. */
    public static String redact(String uri) {
        int start = uri.indexOf("://");
        int end = uri.indexOf('?');
        int at = end < 0 ? uri.lastIndexOf('@') : uri.lastIndexOf('@', end);
        if (at < 0 || start < 0 || at < start) {
            return uri;
        }
        String userInfo = uri.substring(start + 3, at);
        int colon = userInfo.indexOf(':');
        String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
        return uri.substring(0, start + 3) + user + ":****" + uri.substring(at);
    }

    /** The members' addresses, unresolved (resolved by whoever connects to them). */
    public List<java.net.InetSocketAddress> addresses() {
        List<java.net.InetSocketAddress> addresses = new java.util.ArrayList<>();
        for (String endpoint : endpoints) {
            java.net.URI u = java.net.URI.create(endpoint);
            addresses.add(java.net.InetSocketAddress.createUnresolved(u.getHost(), u.getPort()));
        }
        return addresses;
    }

    public boolean hasCredentials() {
        return user != null;
    }

    /** Whether the client presents a certificate of its own ({@code cert} and {@code key}). */
    public boolean hasClientCertificate() {
        return cert != null;
    }

    @Override
    public String toString() {
        return "EtcdUri{" + (user == null ? "" : user + ":****@") + String.join(",", endpoints)
                + (ca == null ? "" : ", ca=" + ca) + (cert == null ? "" : ", cert=" + cert) + "}";
    }
}
