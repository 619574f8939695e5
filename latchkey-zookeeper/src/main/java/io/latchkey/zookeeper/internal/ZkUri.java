package io.latchkey.zookeeper.internal;

import io.latchkey.core.ServerUri;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A parsed {@code zookeeper://[user:password@]host:port[,host:port…][/chroot]} URI: the {@link ServerUri} parts, the
 * path being the chroot. {@link #toString()} never shows the password.
 *
 * @param connectString what ZooKeeper's client takes: {@code host:port,host:port/chroot}
 * @param user the digest user, or {@code null}
 * @param password the digest password, or {@code null}
 * @param server the parts as parsed
 */
public record ZkUri(String connectString, String user, String password, ServerUri server) {

    public static final String PREFIX = "zookeeper://";

    public static ZkUri parse(String uri) {
        if (uri == null || !uri.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new IllegalArgumentException("a ZooKeeper URI must start with " + PREFIX);
        }
        ServerUri parsed = ServerUri.parse(uri, PREFIX.length(), "ZooKeeper");
        String chroot = parsed.path();
        if (parsed.query() != null) {
            throw new IllegalArgumentException(String.format("ZooKeeper URI takes no query but was %s",
                    ServerUri.redact(uri)));
        }
        if (chroot.contains("//") || chroot.contains("/./") || chroot.contains("/../") || chroot.endsWith("/..")
                || chroot.endsWith("/.")) {
            throw new IllegalArgumentException(String.format("ZooKeeper URI has an invalid chroot '%s'", chroot));
        }
        return new ZkUri(hosts(parsed) + chroot, parsed.user(), parsed.password(), parsed);
    }

    private static String hosts(ServerUri parsed) {
        return String.join(",", parsed.hosts());
    }

    /** The servers' {@code host:port} list, without the chroot. */
    public String hosts() {
        return hosts(server);
    }

    /** The servers' addresses, unresolved (resolved by whoever connects to them). */
    public List<InetSocketAddress> addresses() {
        return server.addresses();
    }

    public boolean hasCredentials() {
        return user != null;
    }

    /** The credentials as ZooKeeper's digest scheme takes them ({@code user:password}, UTF-8); only with credentials. */
    public byte[] digest() {
        return (user + ":" + password).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "ZkUri{" + (user == null ? "" : user + ":****@") + connectString + "}";
    }
}
