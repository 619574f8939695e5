package io.latchkey.cli.faults;

/** The faults a fault run injects; see docs/faults.md for what each does and what each backend promises. */
public enum FaultKind {
    /** No fault: the quiet start of the run, the baseline. */
    NONE("none", false),
    /** SIGSTOP a holder for 2.5 leases, then SIGCONT: a GC pause or a descheduled VM. */
    PAUSE("pause holder", false),
    /** SIGKILL a holder (a replacement worker starts): a crash. */
    KILL("kill holder", false),
    /** Black-hole a holder's connections to the server for 2.5 leases (the TCP proxy stops forwarding), then heal. */
    PARTITION("partition holder", false),
    /** kill -9 the server and start it again on the same port (Redis: empty, no persistence). */
    SERVER_RESTART("server restart", true),
    /** Crash the primary (Redis master under Sentinel) and let the deployment fail over. */
    FAILOVER("failover", true),
    /**
     * Move the server's wall clock an hour forward (libfaketime) and leave it there: what NTP stepping a clock, a
     * VM resumed on another host or an operator's {@code date -s} does. A server that times leases by its wall clock
     * (SQL {@code now()}) then sees every lease as expired at once.
     */
    CLOCK_JUMP("clock jump", true),
    /**
     * Cut the server off from every worker for 2.5 leases, then heal: the server runs in a Linux network namespace
     * of its own joined to the host by a veth link, and the link goes down (packets are dropped, connections stay
     * open) and up again. Needs root.
     */
    PARTITION_SERVER("partition server", true),
    /**
     * Cut the leader of a replicated deployment off from the other members and every worker (its network namespace's
     * link down) until the majority has elected a new leader and 2.5 leases have passed, then heal. Needs root.
     */
    PARTITION_LEADER("partition leader", true),
    /**
     * Split brain (Redis Sentinel): the master loses the replica and the sentinels but keeps one worker (in a network
     * namespace of its own with a path to the master and the register only); the sentinels promote the replica,
     * which the other workers follow; after 2.5 leases more the paths come back and the sentinels demote the old
     * master. Needs root.
     */
    SPLIT_BRAIN("split brain", true);

    private final String label;
    private final boolean serverSide;

    FaultKind(String label, boolean serverSide) {
        this.label = label;
        this.serverSide = serverSide;
    }

    /** The name in schedules and tables. */
    public String label() {
        return label;
    }

    /** The name {@code verify --faults --fault NAME} takes: the label with dashes ({@code partition-server}). */
    public String cliName() {
        return label.replace(' ', '-');
    }

    /**
     * The fault named {@code name} on the command line.
     *
     * @throws IllegalArgumentException naming every fault if there is none of that name
     */
    public static FaultKind ofCliName(String name) {
        for (FaultKind k : values()) {
            if (k != NONE && k.cliName().equals(name)) {
                return k;
            }
        }
        throw new IllegalArgumentException(String.format("--fault must be one of %s but was '%s'",
                String.join(", ", java.util.Arrays.stream(values()).filter(k -> k != NONE).map(FaultKind::cliName)
                        .toList()), name));
    }

    /** Whether the fault lasts a fault length (2.5 leases) before it is undone. */
    boolean lasts() {
        return this == PAUSE || this == PARTITION || this == PARTITION_SERVER || this == PARTITION_LEADER
                || this == SPLIT_BRAIN;
    }

    /** Whether the fault needs a server the verifier started itself ({@code --embedded}). */
    boolean serverSide() {
        return serverSide;
    }

    /** Whether the fault is aimed at one holder that must then be told it lost the lock. */
    boolean targetsHolder() {
        return this == PAUSE || this == KILL || this == PARTITION;
    }
}
