package io.latchkey.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The network addresses in a backend URI, checked before anything connects: every port a number in 1..65535, every
 * host non-empty. A URI without a scheme ({@code localhost:6379}) is answered with the URI the user probably meant.
 */
final class Endpoints {

    /** host and port of one server. */
    record HostPort(String host, int port) {
        @Override
        public String toString() {
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /** Default port per backend name ({@link Connector#backendName}); absent: no network address (mem, h2). */
    private static final Map<String, Integer> DEFAULT_PORTS = Map.ofEntries(
            Map.entry("redis", 6379), Map.entry("rediss", 6379), Map.entry("redis-cluster", 6379),
            Map.entry("redis-sentinel", 26379), Map.entry("rediss-sentinel", 26379),
            Map.entry("zookeeper", 2181), Map.entry("etcd", 2379), Map.entry("postgresql", 5432),
            Map.entry("mariadb", 3306), Map.entry("mysql", 3306));

    /** What a bare {@code host:port} most likely was, by well-known port. */
    private static final Map<Integer, String> SCHEME_BY_PORT = Map.of(
            6379, "redis://%s", 6380, "redis://%s", 26379, "redis-sentinel://%s/MASTER_NAME",
            2181, "zookeeper://%s", 2379, "etcd://%s", 5432, "jdbc:postgresql://%s/DATABASE",
            3306, "jdbc:mariadb://%s/DATABASE");

    private Endpoints() {
    }

    /**
     * The servers {@code uri} names, or an empty list for backends without a network address (mem://, jdbc:h2:).
     *
     * @throws CliException (usage) if a port is not a number in 1..65535 or a host is empty
     */
    static List<HostPort> of(String uri) {
        String backend = Connector.backendName(uri);
        Integer defaultPort = DEFAULT_PORTS.get(backend);
        if (defaultPort == null) {
            return List.of();
        }
        String authority = authority(uri);
        List<HostPort> result = new ArrayList<>();
        if (authority == null) {
            // jdbc:postgresql:db means localhost
            result.add(new HostPort("localhost", defaultPort));
            return result;
        }
        if (authority.isEmpty()) {
            if (backend.equals("postgresql") || backend.equals("mariadb") || backend.equals("mysql")) {
                result.add(new HostPort("localhost", defaultPort));
                return result;
            }
            throw usage("no host in %s; write e.g. %slocalhost:%d", Secrets.mask(uri), Connector.scheme(uri),
                    defaultPort);
        }
        for (String part : authority.split(",")) {
            result.add(hostPort(uri, part.strip(), defaultPort));
        }
        return result;
    }

    private static HostPort hostPort(String uri, String part, int defaultPort) {
        if (part.isEmpty()) {
            throw usage("empty host in %s", Secrets.mask(uri));
        }
        String host;
        String port = null;
        if (part.startsWith("[")) {
            int close = part.indexOf(']');
            if (close < 0) {
                throw usage("unclosed '[' in the host '%s' of %s", part, Secrets.mask(uri));
            }
            host = part.substring(1, close);
            String rest = part.substring(close + 1);
            if (!rest.isEmpty()) {
                if (!rest.startsWith(":")) {
                    throw usage("expected ':PORT' after '%s' in %s", part.substring(0, close + 1), Secrets.mask(uri));
                }
                port = rest.substring(1);
            }
        } else {
            int colon = part.lastIndexOf(':');
            host = colon < 0 ? part : part.substring(0, colon);
            port = colon < 0 ? null : part.substring(colon + 1);
        }
        if (host.isEmpty()) {
            throw usage("empty host in '%s' of %s", part, Secrets.mask(uri));
        }
        if (port == null) {
            return new HostPort(host, defaultPort);
        }
        int p;
        try {
            p = port.matches("\\d{1,5}") ? Integer.parseInt(port) : -1;
        } catch (NumberFormatException e) {
            p = -1;
        }
        if (p < 1 || p > 65535) {
            throw usage("port '%s' of host %s in %s is not a number in 1..65535", port, host, Secrets.mask(uri));
        }
        return new HostPort(host, p);
    }

    /** The host list between {@code //} and the path, without user-info; {@code null} if the URI has no {@code //}. */
    private static String authority(String uri) {
        int sep = uri.indexOf("//");
        if (sep < 0) {
            return null;
        }
        String rest = uri.substring(sep + 2);
        int end = rest.length();
        for (char c : new char[] {'/', '?', ';', '#'}) {
            int i = rest.indexOf(c);
            if (i >= 0 && i < end) {
                end = i;
            }
        }
        String authority = rest.substring(0, end);
        int at = authority.lastIndexOf('@');
        return at >= 0 ? authority.substring(at + 1) : authority;
    }

    /**
     * For a URI without a scheme: the one the user probably meant ({@code redis://localhost:6379} for
     * {@code localhost:6379}), or {@code null}.
     */
    static String suggestion(String text) {
        if (text.contains("://") || text.toLowerCase(Locale.ROOT).startsWith("jdbc:")
                || text.toLowerCase(Locale.ROOT).startsWith("mem:")
                || text.toLowerCase(Locale.ROOT).startsWith("file:")) {
            return null;
        }
        String first = text.split(",")[0];
        int colon = first.lastIndexOf(':');
        if (colon <= 0) {
            return null;
        }
        String port = first.substring(colon + 1).replaceAll("[/?].*$", "");
        if (!port.matches("\\d{1,5}")) {
            return null;
        }
        String pattern = SCHEME_BY_PORT.get(Integer.parseInt(port));
        return String.format(pattern != null ? pattern : "redis://%s", text);
    }

    private static CliException usage(String format, Object... args) {
        return new CliException(CliException.USAGE, String.format(format, args));
    }
}
