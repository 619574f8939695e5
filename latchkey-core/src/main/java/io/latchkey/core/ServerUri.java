package io.latchkey.core;

import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The parts every backend's {@code scheme://[user:password@]host:port[,host:port…][/path][?query]} URI shares, parsed
 * and checked alike: the credentials (percent-decoded), the members' {@code host:port} list (each port 1-65535; IPv6
 * hosts in brackets), the path and the query, left to the backend to check. Bad input fails with an
 * {@link IllegalArgumentException} that names the backend and the URI with its password replaced ({@link #redact}).
 * {@link #toString()} never shows the password.
 *
 * @param user the user, or {@code null}
 * @param password the password, or {@code null}
 * @param hosts the {@code host:port} of each member, as written
 * @param path what follows the hosts from its {@code /} on, without a trailing {@code /}; empty if none
 * @param query what follows the {@code ?}, or {@code null} if there is none
 */
public record ServerUri(String user, String password, List<String> hosts, String path, String query) {

    /**
     * Parses {@code uri}, whose scheme (its first {@code schemeLength} characters, {@code ://} included) the caller
     * has checked.
     *
     * @param uri the URI
     * @param schemeLength the length of its scheme and {@code ://}
     * @param backend the backend's name for messages ({@code "etcd"}, {@code "ZooKeeper"})
     * @return the parts
     * @throws IllegalArgumentException if the credentials are not {@code user:password}, or there is no host, or a
     *         host is not {@code host:port} with a port of 1-65535
     */
    public static ServerUri parse(String uri, int schemeLength, String backend) {
        String rest = uri.substring(schemeLength);
        String query = null;
        int q = rest.indexOf('?');
        if (q >= 0) {
            query = rest.substring(q + 1);
            rest = rest.substring(0, q);
        }
        String user = null;
        String password = null;
        int at = rest.lastIndexOf('@');
        if (at >= 0) {
            String userInfo = rest.substring(0, at);
            rest = rest.substring(at + 1);
            int colon = userInfo.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(backend + " URI credentials must be user:password");
            }
            user = decode(userInfo.substring(0, colon));
            password = decode(userInfo.substring(colon + 1));
        }
        int slash = rest.indexOf('/');
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        String path = slash < 0 ? "" : rest.substring(slash);
        if (path.endsWith("/")) {
            path = path.substring(0, path.length() - 1);
        }
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException(String.format("%s URI has no host: %s", backend, redact(uri)));
        }
        List<String> list = List.of(hosts.split(",", -1));
        for (String hp : list) {
            int colon = hp.lastIndexOf(':');
            if (colon <= 0 || colon == hp.length() - 1) {
                throw new IllegalArgumentException(String.format("%s URI host must be host:port but was '%s' in %s",
                        backend, hp, redact(uri)));
            }
            String port = hp.substring(colon + 1);
            if (!port.matches("\\d{1,5}") || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
                throw new IllegalArgumentException(String.format("%s URI port must be 1-65535 but was '%s' in %s",
                        backend, port, redact(uri)));
            }
        }
        return new ServerUri(user, password, list, path, query);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /**
     * {@return {@code uri} with its password replaced by {@code ****}, for messages}
     *
     * @param uri a URI, well-formed or not
     */
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

    /** {@return whether the URI names a user} */
    public boolean hasCredentials() {
        return user != null;
    }

    /** {@return the members' addresses, unresolved (resolved by whoever connects to them)} */
    public List<InetSocketAddress> addresses() {
        List<InetSocketAddress> addresses = new ArrayList<>();
        for (String hp : hosts) {
            int colon = hp.lastIndexOf(':');
            String host = hp.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            addresses.add(InetSocketAddress.createUnresolved(host, Integer.parseInt(hp.substring(colon + 1))));
        }
        return addresses;
    }

    @Override
    public String toString() {
        return "ServerUri{" + (user == null ? "" : user + ":****@") + String.join(",", hosts) + path
                + (query == null ? "" : "?" + query) + "}";
    }
}
