package io.latchkey.cli.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToIntFunction;

/** Reads and rewrites the server addresses of a lock URI, so that a worker's traffic can go through a {@link TcpProxy}. */
final class ProxiedUri {

    /** One server address of a URI. */
    record Address(String host, int port) {
    }

    private ProxiedUri() {
    }

    /** {@code redis}, {@code zookeeper}, {@code etcd}, {@code postgresql}, {@code mariadb}, {@code h2}, … */
    static String backend(String uri) {
        String lower = uri.toLowerCase(Locale.ROOT);
        if (lower.startsWith("jdbc:")) {
            lower = lower.substring(5);
        }
        int end = lower.indexOf(':');
        return end < 0 ? lower : lower.substring(0, end);
    }

    static boolean hasAddresses(String uri) {
        return !addresses(uri).isEmpty();
    }

    /** The host:port pairs of the URI's authority, with the scheme's default port where none is given. */
    static List<Address> addresses(String uri) {
        int[] span = authority(uri);
        List<Address> result = new ArrayList<>();
        if (span == null) {
            return result;
        }
        String authority = uri.substring(span[0], span[1]);
        for (String hp : authority.split(",")) {
            if (hp.isEmpty()) {
                continue;
            }
            int colon = hp.lastIndexOf(':');
            if (colon > 0 && hp.indexOf(']') < colon) {
                result.add(new Address(hp.substring(0, colon), Integer.parseInt(hp.substring(colon + 1))));
            } else {
                result.add(new Address(hp, defaultPort(backend(uri))));
            }
        }
        return result;
    }

    static String hosts(String uri) {
        int[] span = authority(uri);
        return span == null ? backend(uri) : uri.substring(span[0], span[1]);
    }

    /** {@code uri} with each address replaced by {@code 127.0.0.1:<proxyPort.apply(address)>}. */
    static String rewrite(String uri, ToIntFunction<Address> proxyPort) {
        int[] span = authority(uri);
        if (span == null) {
            throw new IllegalArgumentException("no server address in " + uri);
        }
        List<String> parts = new ArrayList<>();
        for (Address a : addresses(uri)) {
            parts.add("127.0.0.1:" + proxyPort.applyAsInt(a));
        }
        return uri.substring(0, span[0]) + String.join(",", parts) + uri.substring(span[1]);
    }

    /** Start and end of the host list (after any user-info), or {@code null} for URIs without one. */
    private static int[] authority(String uri) {
        int sep = uri.indexOf("//");
        if (sep < 0) {
            return null;
        }
        int start = sep + 2;
        int end = uri.length();
        for (char c : new char[] {'/', '?', ';'}) {
            int i = uri.indexOf(c, start);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        int at = uri.lastIndexOf('@', end - 1);
        if (at >= start) {
            start = at + 1;
        }
        return start < end ? new int[] {start, end} : null;
    }

    private static int defaultPort(String backend) {
        switch (backend) {
            case "redis":
            case "rediss":
                return 6379;
            case "zookeeper":
                return 2181;
            case "etcd":
                return 2379;
            case "postgresql":
                return 5432;
            case "mariadb":
            case "mysql":
                return 3306;
            default:
                throw new IllegalArgumentException("no default port for " + backend + "; give host:port");
        }
    }
}
