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
    CLOCK_JUMP("clock jump", true);

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

    /** Whether the fault needs a server the verifier started itself ({@code --embedded}). */
    boolean serverSide() {
        return serverSide;
    }

    /** Whether the fault is aimed at one holder that must then be told it lost the lock. */
    boolean targetsHolder() {
        return this == PAUSE || this == KILL || this == PARTITION;
    }
}
