package io.latchkey.cli.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The faults of a run in order, with how long each lasts and how long the run then waits (the settle time) before
 * the next: printed before the run starts. Client-side faults (pause, kill, partition) run on every backend;
 * server faults only on a server the verifier started.
 *
 * @param steps the faults in order, after a quiet baseline of {@code settle}
 * @param faultLength how long a pause or a partition lasts (2.5 leases: the lock is surely lost meanwhile)
 * @param settle the quiet time after each fault (and the baseline before the first)
 * @param notes what does not run and why
 */
record FaultSchedule(List<FaultKind> steps, Duration faultLength, Duration settle, List<String> notes) {

    static FaultSchedule plan(ServerControl server, Duration lease, Duration duration, Set<FaultKind> skip) {
        return plan(server, lease, duration, skip, Set.of());
    }

    /**
     * @param only when not empty, the only faults to run
     * @throws IllegalArgumentException if {@code only} names a fault this server does not have, saying why
     */
    static FaultSchedule plan(ServerControl server, Duration lease, Duration duration, Set<FaultKind> skip,
                              Set<FaultKind> only) {
        List<FaultKind> steps = new ArrayList<>(List.of(FaultKind.PAUSE, FaultKind.KILL));
        List<String> notes = new ArrayList<>();
        if (server.proxiable()) {
            steps.add(FaultKind.PARTITION);
        } else {
            notes.add("partition: not run (the workers' connections to " + server.backend()
                    + " cannot all go through the verifier's proxy)");
        }
        Set<FaultKind> serverFaults = server.serverFaults();
        for (FaultKind k : List.of(FaultKind.SERVER_RESTART, FaultKind.FAILOVER, FaultKind.CLOCK_JUMP,
                FaultKind.PARTITION_SERVER, FaultKind.PARTITION_LEADER, FaultKind.SPLIT_BRAIN)) {
            if (serverFaults.contains(k)) {
                steps.add(k);
            }
        }
        if (serverFaults.isEmpty()) {
            notes.add("server restart and failover: not run (the verifier did not start this server; use --embedded "
                    + "to include them)");
        }
        if (!serverFaults.contains(FaultKind.CLOCK_JUMP)) {
            notes.add("clock jump: not run (" + server.whyNoClockJump() + ")");
        }
        if (!serverFaults.contains(FaultKind.PARTITION_SERVER) && !serverFaults.isEmpty()) {
            notes.add("partition server: not run (the verifier runs only the servers of --embedded "
                    + String.join(", ", EmbeddedServers.PARTITIONABLE) + ", redis-sentinel, redis-cluster, zookeeper-ensemble and "
                    + "etcd-cluster in network namespaces of their own)");
        }
        for (FaultKind k : only) {
            if (!steps.contains(k)) {
                throw new IllegalArgumentException(String.format("--fault %s does not run on %s: %s", k.cliName(),
                        server.backend(), notes.stream().filter(n -> n.startsWith(k.label() + ":")
                                || k.serverSide() && n.startsWith("server restart and failover:")).findFirst()
                                .orElse("not one of its faults (see --help)")));
            }
        }
        if (!only.isEmpty()) {
            steps.retainAll(only);
            notes.clear();
        }
        steps.removeAll(skip);
        Duration faultLength = lease.multipliedBy(5).dividedBy(2);
        Duration settle = max(Duration.ofSeconds(3), lease.multipliedBy(3).dividedBy(2),
                duration.dividedBy(steps.size() + 1));
        return new FaultSchedule(List.copyOf(steps), faultLength, settle, List.copyOf(notes));
    }

    private static Duration max(Duration... ds) {
        Duration m = ds[0];
        for (Duration d : ds) {
            if (d.compareTo(m) > 0) {
                m = d;
            }
        }
        return m;
    }

    /** The schedule as printed before the run. */
    List<String> describe() {
        List<String> lines = new ArrayList<>();
        long at = settle.toMillis();
        lines.add(String.format(Locale.ROOT, "  %6.1fs  baseline (no fault)", 0.0));
        for (FaultKind k : steps) {
            String what = switch (k) {
                case PAUSE -> "SIGSTOP a holder for " + seconds(faultLength) + ", then SIGCONT";
                case KILL -> "SIGKILL a holder (a new worker replaces it)";
                case PARTITION -> "black-hole a holder's connections for " + seconds(faultLength) + ", then heal";
                case SERVER_RESTART -> "kill -9 the server, start it again after 1s";
                case FAILOVER -> "kill -9 the leader (Redis master, the Redis Cluster master of the lock's slot, ZooKeeper or etcd "
                        + "leader), wait for a new one, restart the old member";
                case CLOCK_JUMP -> "move the server's wall clock " + FaultRun.CLOCK_JUMP.toMinutes()
                        + " min forward (libfaketime) and leave it there";
                case PARTITION_SERVER -> "cut the server's network namespace off from every worker for "
                        + seconds(faultLength) + " (veth link down, or blackhole routes), then heal";
                case PARTITION_LEADER -> "cut the leader's network namespace off from the other members and every "
                        + "worker until a new leader is elected and " + seconds(faultLength) + " passed, then heal";
                case SPLIT_BRAIN -> "cut the master off from the replica, the sentinels and every worker but one until "
                        + "the sentinels promoted the replica and " + seconds(faultLength) + " passed, then heal (the "
                        + "old master is demoted)";
                default -> "";
            };
            lines.add(String.format(Locale.ROOT, "  %6.1fs  %-16s %s", at / 1000.0, k.label(), what));
            at += settle.toMillis() + (k.lasts() ? faultLength.toMillis() : 0);
        }
        for (String n : notes) {
            lines.add("  " + n);
        }
        return lines;
    }

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1fs", d.toMillis() / 1000.0);
    }
}
