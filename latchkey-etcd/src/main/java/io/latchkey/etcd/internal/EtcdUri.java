package io.latchkey.etcd.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A parsed {@code etcd://[user:password@]host:port[,host:port…]} URI ({@code etcds://} for TLS with the JVM's trust
 * store is not offered). {@link #toString()} never shows the password.
 *
 * @param endpoints what jetcd takes: {@code http://host:port} per member
 * @param user the etcd user, or {@code null}
 * @param password the etcd password, or {@code null}
 */
public record EtcdUri(List<String> endpoints, String user, String password) {

    public static final String PREFIX = "etcd://";

    public static EtcdUri parse(String uri) {
        if (uri == null || !uri.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new IllegalArgumentException("an etcd URI must start with " + PREFIX);
        }
        String rest = uri.substring(PREFIX.length());
        String user = null;
        String password = null;
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
        if (rest.contains("/") || rest.contains("?") || rest.contains("#")) {
            throw new IllegalArgumentException(String.format(
                    "etcd URI must be etcd://host:port[,host:port…] without a path or query but was %s",
                    redact(uri)));
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
            endpoints.add("http://" + hp);
        }
        return new EtcdUri(List.copyOf(endpoints), user, password);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** The URI with its password replaced, for messages. */
    public static String redact(String uri) {
        int at = uri.lastIndexOf('@');
        int start = uri.indexOf("://");
        if (at < 0 || start < 0 || at < start) {
            return uri;
        }
        String userInfo = uri.substring(start + 3, at);
        int colon = userInfo.indexOf(':');
        String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
        return uri.substring(0, start + 3) + user + ":****" + uri.substring(at);
    }

    public boolean hasCredentials() {
        return user != null;
    }

    @Override
    public String toString() {
        return "EtcdUri{" + (user == null ? "" : user + ":****@") + String.join(",", endpoints) + "}";
    }
}
