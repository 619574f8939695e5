package io.latchkey.cli.faults;

import java.time.Duration;

import java.util.List;
import java.util.Set;

/**
 * The server side of a fault run: the URI the workers lock on, and the server faults the verifier can inject because
 * it started the server itself ({@code --embedded}). A user's own server ({@link #external(String)}) offers none.
 */
interface ServerControl extends AutoCloseable {

    /** A short name for tables: {@code redis}, {@code redis-sentinel}, {@code zookeeper}, … or the URI's scheme. */
    String backend();

    /** What the workers lock on. */
    String uri();

    /** A sentence for the run's header. */
    String description();

    /** The server faults this server supports. */
    Set<FaultKind> serverFaults();

    /** Whether the workers' connections can be routed through a {@link TcpProxy} (one address per server member). */
    boolean proxiable();

    /** kill -9 the server (the caller then {@link #restart()}s it). */
    default void crash() {
        throw new UnsupportedOperationException(backend() + " cannot be crashed by the verifier");
    }

    /** Starts the crashed server again on the same address. */
    default void restart() {
        throw new UnsupportedOperationException(backend() + " cannot be restarted by the verifier");
    }

    /** Crashes the primary and returns when the deployment has failed over. */
    default void failover() {
        throw new UnsupportedOperationException(backend() + " has no failover the verifier can trigger");
    }

    /**
     * Moves the server's wall clock by {@code by} and leaves it there.
     *
     * @throws UnsupportedOperationException unless {@link #serverFaults()} has {@link FaultKind#CLOCK_JUMP}
     */
    default void jumpClock(Duration by) {
        throw new UnsupportedOperationException(backend() + "'s clock cannot be moved by the verifier");
    }

    /** Why this server's clock cannot be moved, for the schedule's notes (when it cannot). */
    default String whyNoClockJump() {
        return "the verifier moves the clock only of a SQL server it started (--embedded postgresql or mariadb, with "
                + "libfaketime); docs/faults.md says why the other servers do not need or allow it";
    }

    /** Cuts the server off from every worker (its network namespace's link goes down) until {@link #heal()}. */
    default void partition() {
        throw new UnsupportedOperationException(backend() + " does not run in a network namespace of the verifier");
    }

    /**
     * Cuts the leader off from the other members and from every worker, and returns once the others elected a new
     * leader; {@link #heal()} ends it.
     */
    default void isolateLeader() {
        throw new UnsupportedOperationException(backend() + " has no leader the verifier can isolate");
    }

    /**
     * Split brain: cuts the master off from its replicas, the sentinels and every worker but the one started with
     * {@link #onMasterSide(List)}, and returns once the deployment promoted another master; {@link #heal()} ends it
     * (and returns once the old master is demoted).
     */
    default void splitBrain() {
        throw new UnsupportedOperationException(backend() + " has no master the verifier can split off");
    }

    /**
     * {@code command} run where it stays with the master in a {@link #splitBrain()}, or with the leader when it is
     * {@linkplain #isolateLeader() isolated} (a network namespace of its own with a path to it and to the host), or
     * {@code null} if this server has no such place.
     */
    default List<String> onMasterSide(List<String> command) {
        return null;
    }

    /** The host's address as processes started {@link #onMasterSide(List)} reach it, or {@code null}. */
    default String hostAddress() {
        return null;
    }

    /** Ends {@link #partition()}, {@link #isolateLeader()} or {@link #splitBrain()}. */
    default void heal() {
        throw new UnsupportedOperationException(backend() + " does not run in a network namespace of the verifier");
    }

    /**
     * What the lock's server keeps right now (Redis keys, rows of the lease table, znodes under {@code /latchkey},
     * etcd keys), for a soak run's samples; -1 if the verifier cannot count it (a server it did not start).
     */
    default long serverObjects() {
        return -1;
    }

    /** Stops what the verifier started. */
    @Override
    void close();

    /** A server the verifier did not start: client-side faults only. */
    static ServerControl external(String uri) {
        return new ServerControl() {
            @Override
            public String backend() {
                return ProxiedUri.backend(uri);
            }

            @Override
            public String uri() {
                return uri;
            }

            @Override
            public String description() {
                return "your server at " + ProxiedUri.hosts(uri)
                        + " (not started by the verifier: client-side faults only)";
            }

            @Override
            public Set<FaultKind> serverFaults() {
                return Set.of();
            }

            @Override
            public boolean proxiable() {
                return ProxiedUri.hasAddresses(uri) && !uri.startsWith("redis-sentinel:")
                        && !uri.startsWith("redis-cluster:");
            }

            @Override
            public void close() {
            }
        };
    }
}
