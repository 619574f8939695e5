package io.latchkey.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A Linux network namespace of its own for a test server, joined to the host's namespace by one veth pair on a
 * {@code /30} of {@code 10.213.0.0/16}: the server listens on {@link #address()} inside it, clients reach it from
 * the host through the link, and {@link #cut()} takes the namespace's end of the link down (packets are dropped, TCP
 * connections stay open and resume after {@link #heal()}): a real network partition, with no proxy in the path.
 *
 * <p>Needs root and {@code ip} (iproute2): {@link #create(String)} fails naming what is missing. Names are unique per
 * process and call, so parallel runs do not clash; a blackhole route on the subnet keeps packets to a cut namespace
 * from leaving the host by the default route. {@link #close()} (also run by a shutdown hook) deletes the link, the
 * route and the namespace; processes still running in it are the caller's to stop first.
 */
public final class NetworkNamespace implements AutoCloseable {

    /** What to install when {@code ip} is missing. */
    public static final String INSTALL_HINT = "sudo apt-get install iproute2";

    private static final AtomicInteger COUNTER = new AtomicInteger();

    private final String name;
    private final String hostLink;
    private final String innerLink;
    private final String subnet;
    private final String hostAddress;
    private final String address;
    private final NetnsCleanup cleanup;
    private volatile boolean cut;

    private NetworkNamespace(String name, int a, int b) {
        this.name = name;
        this.hostLink = name + "h";
        this.innerLink = name + "n";
        this.subnet = "10.213." + a + "." + b + "/30";
        this.hostAddress = "10.213." + a + "." + (b + 1);
        this.address = "10.213." + a + "." + (b + 2);
        this.cleanup = new NetnsCleanup(name, this::deleteQuietly);
    }

    /**
     * Creates a namespace for {@code purpose} (named in errors) with its link up.
     *
     * @throws IllegalStateException if not running as root, {@code ip} is missing or the kernel refuses namespaces,
     *         naming what is missing
     */
    public static NetworkNamespace create(String purpose) {
        requireRootAndIp(purpose, "Linux network namespaces and veth links");
        String name = String.format(Locale.ROOT, "lk%xx%x", ProcessHandle.current().pid() & 0xffffff,
                COUNTER.getAndIncrement() & 0xfff);
        String used = usedAddresses();
        for (int attempt = 0; attempt < 50; attempt++) {
            int a = ThreadLocalRandom.current().nextInt(256);
            int b = ThreadLocalRandom.current().nextInt(64) * 4;
            NetworkNamespace ns = new NetworkNamespace(name, a, b);
            // nor inside the /24 of a NetworkSegment (its route names 10.213.a.0/24)
            if (used.contains("10.213." + a + "." + b + "/") || used.contains(" " + ns.hostAddress + "/")
                    || used.contains("10.213." + a + ".0/24")) {
                continue;
            }
            ns.cleanup.addShutdownHook();
            try {
                ns.setUp();
                return ns;
            } catch (RuntimeException e) {
                ns.close();
                throw new IllegalStateException(purpose + " could not create a network namespace (Linux network "
                        + "namespaces, veth links): " + e.getMessage(), e);
            }
        }
        throw new IllegalStateException(purpose + ": no free /30 in 10.213.0.0/16 for a namespace's link");
    }

    private void setUp() {
        run(List.of("ip", "netns", "add", name), true);
        run(List.of("ip", "link", "add", hostLink, "type", "veth", "peer", "name", innerLink), true);
        run(List.of("ip", "link", "set", innerLink, "netns", name), true);
        run(List.of("ip", "addr", "add", hostAddress + "/30", "dev", hostLink), true);
        run(List.of("ip", "link", "set", hostLink, "up"), true);
        run(List.of("ip", "-n", name, "addr", "add", address + "/30", "dev", innerLink), true);
        run(List.of("ip", "-n", name, "link", "set", innerLink, "up"), true);
        run(List.of("ip", "-n", name, "link", "set", "lo", "up"), true);
        run(List.of("ip", "route", "add", "blackhole", subnet, "metric", "4000"), true);
    }

    /** The namespace's name ({@code ip netns exec NAME …}). */
    public String name() {
        return name;
    }

    /** The address inside the namespace, where its server listens. */
    public String address() {
        return address;
    }

    /** {@code command} run inside the namespace ({@code ip netns exec NAME command…}). */
    public List<String> wrap(List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", name));
        c.addAll(command);
        return c;
    }

    /** Takes the namespace's end of the link down: nothing reaches the namespace or leaves it until {@link #heal()}. */
    public void cut() {
        run(List.of("ip", "-n", name, "link", "set", innerLink, "down"), true);
        cut = true;
    }

    /** Brings the link up again (the address and routes come back with it). */
    public void heal() {
        run(List.of("ip", "-n", name, "link", "set", innerLink, "up"), true);
        cut = false;
    }

    /** Whether the link is cut. */
    public boolean isCut() {
        return cut;
    }

    /** Deletes the link, the route and the namespace; safe to call twice. */
    @Override
    public synchronized void close() {
        cleanup.run();
    }

    private void deleteQuietly() {
        run(List.of("ip", "link", "del", hostLink), false);
        run(List.of("ip", "route", "del", "blackhole", subnet, "metric", "4000"), false);
        run(List.of("ip", "netns", "del", name), false);
    }

    @Override
    public String toString() {
        return "NetworkNamespace{" + name + ", " + address + (cut ? ", cut" : "") + "}";
    }

    /**
     * Fails unless this runs as root with {@code ip} installed.
     *
     * @param creates what {@code purpose} creates, for the message
     */
    static void requireRootAndIp(String purpose, String creates) {
        if (!"root".equals(System.getProperty("user.name"))) {
            throw new IllegalStateException(purpose + " needs root (it creates " + creates + " with `ip netns` and "
                    + "`ip link`); this runs as " + System.getProperty("user.name"));
        }
        ServerProcess.requireBinary("ip", INSTALL_HINT);
    }

    /** The host's IPv4 addresses and routes, as {@code ip} prints them, to pick a subnet in none of them. */
    static String usedAddresses() {
        return run(List.of("ip", "-o", "-4", "addr", "show"), false) + run(List.of("ip", "-4", "route"), false);
    }

    static String run(List<String> command, boolean check) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within 10 s");
            }
            if (check && p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + out.strip());
            }
            return out;
        } catch (IOException e) {
            if (!check) {
                return "";
            }
            throw new UncheckedIOException("could not run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + String.join(" ", command), e);
        }
    }
}
