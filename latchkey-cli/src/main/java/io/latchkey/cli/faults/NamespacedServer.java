package io.latchkey.cli.faults;

import io.latchkey.testing.NetworkNamespace;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * A server that runs in a Linux network namespace of its own, with the {@code partition-server} fault: its veth link
 * to the host goes down and up again. Everything else is the server's; closing it heals the link, closes the server
 * and deletes the namespace.
 */
final class NamespacedServer implements ServerControl {

    private final ServerControl server;
    private final NetworkNamespace ns;
    private final Set<FaultKind> faults;

    /** {@code server}, which runs in {@code ns}; closing this deletes {@code ns}. */
    NamespacedServer(ServerControl server, NetworkNamespace ns) {
        this.server = server;
        this.ns = ns;
        EnumSet<FaultKind> all = EnumSet.of(FaultKind.PARTITION_SERVER);
        all.addAll(server.serverFaults());
        this.faults = all;
    }

    @Override
    public String backend() {
        return server.backend();
    }

    @Override
    public String uri() {
        return server.uri();
    }

    @Override
    public String description() {
        return server.description() + ", in network namespace " + ns.name() + " (veth link to the host)";
    }

    @Override
    public Set<FaultKind> serverFaults() {
        return faults;
    }

    @Override
    public boolean proxiable() {
        return server.proxiable();
    }

    @Override
    public void crash() {
        server.crash();
    }

    @Override
    public void restart() {
        server.restart();
    }

    @Override
    public void failover() {
        server.failover();
    }

    @Override
    public void jumpClock(Duration by) {
        server.jumpClock(by);
    }

    @Override
    public String whyNoClockJump() {
        return server.whyNoClockJump();
    }

    @Override
    public long serverObjects() {
        return server.serverObjects();
    }

    @Override
    public void partition() {
        ns.cut();
    }

    @Override
    public void heal() {
        ns.heal();
    }

    @Override
    public void close() {
        try {
            if (ns.isCut()) {
                ns.heal();
            }
            server.close();
        } finally {
            ns.close();
        }
    }
}
