package io.latchkey.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Several test servers, each in a Linux network namespace of its own, on one switched segment: a bridge in a namespace
 * of its own joins one veth link per member and one to the host, on a {@code /24} of {@code 10.213.0.0/16} (the host
 * is {@code .1}, member {@code i} is {@code .(i + 2)}). {@link #cut(int)} takes member {@code i}'s end of its link
 * down: it loses the host and every other member at once (a leader isolated from the majority and from its clients),
 * until {@link #heal(int)}.
 *
 * <p>Needs root and {@code ip}: {@link #create(String, int)} fails naming what is missing. Names are unique per process
 * and call; a blackhole route on the subnet keeps packets from leaving the host by the default route.
 * {@link #close()} (also a shutdown hook) deletes the links, the route and the namespaces.
 */
public final class NetworkSegment implements AutoCloseable {

    private static final AtomicInteger COUNTER = new AtomicInteger();

    /** The host's side of the segment in {@link #block(int, int)}: the processes that run outside the namespaces. */
    public static final int HOST = -1;

    private final String base;
    private final int members;
    private final int net;
    private final boolean[] cut;
    private final NetnsCleanup cleanup;
    /** The blocked pairs ({@link #block(int, int)}), each as {@code {i, j}}. */
    private final List<int[]> blocked = new ArrayList<>();

    private NetworkSegment(String base, int members, int net) {
        this.base = base;
        this.members = members;
        this.net = net;
        this.cut = new boolean[members];
        this.cleanup = new NetnsCleanup(base, this::deleteQuietly);
    }

    /**
     * Creates the segment with {@code members} member namespaces, every link up.
     *
     * @throws IllegalStateException if not running as root, {@code ip} is missing or the kernel refuses namespaces or
     *         bridges, naming what is missing
     */
    public static NetworkSegment create(String purpose, int members) {
        if (members < 1 || members > 9) {
            throw new IllegalArgumentException("members must be 1..9 but was " + members);
        }
        NetworkNamespace.requireRootAndIp(purpose, "Linux network namespaces, veth links and a bridge");
        String base = String.format(Locale.ROOT, "lk%xg%x", ProcessHandle.current().pid() & 0xffffff,
                COUNTER.getAndIncrement() & 0xff);
        String used = NetworkNamespace.usedAddresses();
        for (int attempt = 0; attempt < 50; attempt++) {
            int net = ThreadLocalRandom.current().nextInt(256);
            if (used.contains("10.213." + net + ".")) {
                continue;
            }
            NetworkSegment s = new NetworkSegment(base, members, net);
            s.cleanup.addShutdownHook();
            try {
                s.setUp();
                return s;
            } catch (RuntimeException e) {
                s.close();
                throw new IllegalStateException(purpose + " could not create its network (Linux network namespaces, "
                        + "veth links, a bridge): " + e.getMessage(), e);
            }
        }
        throw new IllegalStateException(purpose + ": no free /24 in 10.213.0.0/16 for its network");
    }

    private String switchNs() {
        return base + "s";
    }

    private String memberNs(int i) {
        return base + "m" + i;
    }

    private void setUp() {
        String sw = switchNs();
        run("ip", "netns", "add", sw);
        run("ip", "-n", sw, "link", "add", "br0", "type", "bridge");
        run("ip", "-n", sw, "link", "set", "br0", "up");
        attach(null, base + "h", base + "hs", "10.213." + net + ".1");
        for (int i = 0; i < members; i++) {
            run("ip", "netns", "add", memberNs(i));
            attach(memberNs(i), base + "m" + i + "n", base + "m" + i + "s", address(i));
            run("ip", "-n", memberNs(i), "link", "set", "lo", "up");
        }
        run("ip", "route", "add", "blackhole", "10.213." + net + ".0/24", "metric", "4000");
    }

    /** A veth pair: {@code inner} in {@code ns} (the host's namespace if null) with {@code address}, {@code outer} on the bridge. */
    private void attach(String ns, String inner, String outer, String address) {
        run("ip", "link", "add", inner, "type", "veth", "peer", "name", outer);
        run("ip", "link", "set", outer, "netns", switchNs());
        run("ip", "-n", switchNs(), "link", "set", outer, "master", "br0");
        run("ip", "-n", switchNs(), "link", "set", outer, "up");
        if (ns != null) {
            run("ip", "link", "set", inner, "netns", ns);
            run("ip", "-n", ns, "addr", "add", address + "/24", "dev", inner);
            run("ip", "-n", ns, "link", "set", inner, "up");
        } else {
            run("ip", "addr", "add", address + "/24", "dev", inner);
            run("ip", "link", "set", inner, "up");
        }
    }

    /** How many members the segment has. */
    public int members() {
        return members;
    }

    /** Member {@code i}'s address, or the host's for {@link #HOST}. */
    public String address(int i) {
        return i == HOST ? hostAddress() : "10.213." + net + "." + (i + 2);
    }

    /** The host's address on the segment: where its processes listen for the members. */
    public String hostAddress() {
        return "10.213." + net + ".1";
    }

    /**
     * Cuts the path between member {@code i} and member {@code j} (either may be {@link #HOST}) and leaves every other
     * path up: a blackhole route to the other's address on each side, so that their packets are dropped both ways
     * (connections stay open). With several pairs a deployment splits in two while some members (clients) keep a path
     * to both sides. {@link #unblockAll()} ends it.
     */
    public synchronized void block(int i, int j) {
        if (i == j || i < HOST || j < HOST || i >= members || j >= members) {
            throw new IllegalArgumentException(String.format("cannot block members %d and %d of %d", i, j, members));
        }
        route("add", i, j);
        route("add", j, i);
        blocked.add(new int[] {i, j});
    }

    /** Ends every {@link #block(int, int)}. */
    public synchronized void unblockAll() {
        for (int[] b : blocked) {
            route("del", b[0], b[1]);
            route("del", b[1], b[0]);
        }
        blocked.clear();
    }

    /** Whether any pair is {@linkplain #block(int, int) blocked}. */
    public synchronized boolean isBlocked() {
        return !blocked.isEmpty();
    }

    /** In {@code from}'s routing table: a blackhole route to {@code to}'s address. */
    private void route(String op, int from, int to) {
        List<String> c = new ArrayList<>(from == HOST ? List.of("ip") : List.of("ip", "-n", memberNs(from)));
        c.addAll(List.of("route", op, "blackhole", address(to) + "/32"));
        run(c.toArray(String[]::new));
    }

    /** {@code command} run in member {@code i}'s namespace. */
    public List<String> wrap(int i, List<String> command) {
        List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", memberNs(i)));
        c.addAll(command);
        return c;
    }

    /** Member {@code i}'s namespace name. */
    public String name(int i) {
        return memberNs(i);
    }

    /** Takes member {@code i}'s end of its link down: it reaches nobody and nobody reaches it. */
    public synchronized void cut(int i) {
        run("ip", "-n", memberNs(i), "link", "set", base + "m" + i + "n", "down");
        cut[i] = true;
    }

    /** Brings member {@code i}'s link up again. */
    public synchronized void heal(int i) {
        run("ip", "-n", memberNs(i), "link", "set", base + "m" + i + "n", "up");
        cut[i] = false;
    }

    /** Whether member {@code i}'s link is cut. */
    public synchronized boolean isCut(int i) {
        return cut[i];
    }

    /** Deletes the links, the route and the namespaces; safe to call twice. */
    @Override
    public synchronized void close() {
        cleanup.run();
    }

    private void deleteQuietly() {
        for (int[] b : List.copyOf(blocked)) {
            for (int k = 0; k < 2; k++) {
                if (b[k] == HOST) {
                    NetworkNamespace.run(List.of("ip", "route", "del", "blackhole", address(b[1 - k]) + "/32"), false);
                }
            }
        }
        NetworkNamespace.run(List.of("ip", "link", "del", base + "h"), false);
        NetworkNamespace.run(List.of("ip", "route", "del", "blackhole", "10.213." + net + ".0/24", "metric", "4000"),
                false);
        for (int i = 0; i < members; i++) {
            NetworkNamespace.run(List.of("ip", "netns", "del", memberNs(i)), false);
        }
        NetworkNamespace.run(List.of("ip", "netns", "del", switchNs()), false);
    }

    @Override
    public String toString() {
        return "NetworkSegment{" + base + ", 10.213." + net + ".0/24, " + members + " members}";
    }

    private static void run(String... command) {
        NetworkNamespace.run(List.of(command), true);
    }
}
