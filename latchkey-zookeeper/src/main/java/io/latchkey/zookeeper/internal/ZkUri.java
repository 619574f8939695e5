package io.latchkey.zookeeper.internal;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * A parsed {@code zookeeper://[user:password@]host:port[,host:port…][/chroot]} URI. {@link #toString()} never shows
 * the password.
 *
 * @param connectString what ZooKeeper's client takes: {@code host:port,host:port/chroot}
 * @param user the digest user, or {@code null}
 * @param password the digest password, or {@code null}
 */
public record ZkUri(String connectString, String user, String password) {

    public static final String PREFIX = "zookeeper://";

    public static ZkUri parse(String uri) {
        if (uri == null || !uri.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new IllegalArgumentException("a ZooKeeper URI must start with " + PREFIX);
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
                throw new IllegalArgumentException(
                        "ZooKeeper URI credentials must be user:password (digest scheme)");
            }
            user = decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
        }
        int slash = rest.indexOf('/');
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        String chroot = slash < 0 ? "" : rest.substring(slash);
        if (chroot.endsWith("/")) {
            chroot = chroot.substring(0, chroot.length() - 1);
        }
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException(String.format("ZooKeeper URI has no host: %s", redact(uri)));
        }
        for (String hp : hosts.split(",")) {
            int colon = hp.lastIndexOf(':');
            if (colon <= 0 || colon == hp.length() - 1) {
                throw new IllegalArgumentException(String.format(
                        "ZooKeeper URI host must be host:port but was '%s' in %s", hp, redact(uri)));
            }
            try {
                int port = Integer.parseInt(hp.substring(colon + 1));
                if (port < 1 || port > 65535) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(String.format(
                        "ZooKeeper URI port must be 1-65535 but was '%s' in %s", hp.substring(colon + 1),
                        redact(uri)));
            }
        }
        if (chroot.contains("//") || chroot.contains("/./") || chroot.contains("/../") || chroot.endsWith("/..")
                || chroot.endsWith("/.")) {
            throw new IllegalArgumentException(String.format("ZooKeeper URI has an invalid chroot '%s'", chroot));
        }
        return new ZkUri(hosts + chroot, user, password);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** The URI with its password replaced, for messages. */
    public static String redact(String uri) {
        int at = uri.lastIndexOf('@');
        if (at < 0) {
            return uri;
        }
        int start = uri.indexOf("://");
        String userInfo = uri.substring(start + 3, at);
        int colon = userInfo.indexOf(':');
        String user = colon < 0 ? userInfo : userInfo.substring(0, colon);
        return uri.substring(0, start + 3) + user + ":****" + uri.substring(at);
    }

    /** The servers' {@code host:port} list, without the chroot. */
    public String hosts() {
        int slash = connectString.indexOf('/');
        return slash < 0 ? connectString : connectString.substring(0, slash);
    }

    /** The servers' addresses, unresolved (resolved by whoever connects to them). */
    public java.util.List<java.net.InetSocketAddress> addresses() {
        java.util.List<java.net.InetSocketAddress> addresses = new java.util.ArrayList<>();
        for (String hp : hosts().split(",")) {
            int colon = hp.lastIndexOf(':');
            String host = hp.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            addresses.add(java.net.InetSocketAddress.createUnresolved(host, Integer.parseInt(hp.substring(colon + 1))));
        }
        return addresses;
    }

    public boolean hasCredentials() {
        return user != null;
    }

    @Override
    public String toString() {
        return "ZkUri{" + (user == null ? "" : user + ":****@") + connectString + "}";
    }
}
