package io.latchkey.bench.sizing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CPU time and resident memory of the servers this JVM started, read from Linux's {@code /proc}: each direct child
 * process of the JVM is one server node (a {@code redis-server}, an {@code etcd}, a forked ZooKeeper JVM, a
 * {@code postgres} postmaster), counted with every process below it (PostgreSQL's backends, or the server under a
 * {@code runuser} wrapper). CPU is user plus system time, including that of children the node already reaped.
 * Elsewhere than Linux every reading is empty.
 */
final class ServerProcesses {

    /** Linux's USER_HZ: {@code /proc/<pid>/stat} counts CPU time in ticks of 10 ms on every mainstream kernel. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    private ServerProcesses() {
    }

    /** CPU nanoseconds so far of each server node (by the pid of the JVM's child), in start order. */
    static Map<Long, Long> cpuNanosByNode() {
        Map<Long, Long> byNode = new LinkedHashMap<>();
        for (ProcessHandle node : nodes()) {
            long ticks = ticks(node.pid());
            for (ProcessHandle d : node.descendants().toList()) {
                ticks += ticks(d.pid());
            }
            byNode.put(node.pid(), ticks * NANOS_PER_TICK);
        }
        return byNode;
    }

    /**
     * Proportional resident memory (Pss: each shared page divided among the processes that map it, so
     * PostgreSQL's shared buffers count once, not once per backend) in bytes of every server node with its
     * descendants.
     */
    static long rssBytes() {
        long sum = 0;
        for (ProcessHandle node : nodes()) {
            sum += rss(node.pid());
            for (ProcessHandle d : node.descendants().toList()) {
                sum += rss(d.pid());
            }
        }
        return sum;
    }

    /** CPU used between two readings of {@link #cpuNanosByNode()}: the sum over the nodes and the busiest node. */
    static long[] delta(Map<Long, Long> before, Map<Long, Long> after) {
        long sum = 0;
        long max = 0;
        for (Map.Entry<Long, Long> e : after.entrySet()) {
            long d = e.getValue() - before.getOrDefault(e.getKey(), 0L);
            sum += d;
            max = Math.max(max, d);
        }
        return new long[] {sum, max};
    }

    private static List<ProcessHandle> nodes() {
        return ProcessHandle.current().children().sorted((a, b) -> Long.compare(a.pid(), b.pid())).toList();
    }

    /** utime + stime + cutime + cstime of {@code /proc/<pid>/stat}, or 0 if the process is gone. */
    private static long ticks(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name (field 2) is in parentheses and may contain spaces: fields count from its end.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            // f[0] is field 3 (state); utime, stime, cutime, cstime are fields 14 to 17.
            return Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Pss of {@code /proc/<pid>/smaps_rollup}, else VmRSS of {@code /proc/<pid>/status}, or 0 if it is gone. */
    private static long rss(long pid) {
        long pss = kilobytes(Path.of("/proc", Long.toString(pid), "smaps_rollup"), "Pss:");
        return pss >= 0 ? pss : Math.max(0, kilobytes(Path.of("/proc", Long.toString(pid), "status"), "VmRSS:"));
    }

    private static long kilobytes(Path file, String field) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(field)) {
                    // "Pss:     12345 kB"
                    return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]) * 1024;
                }
            }
        } catch (IOException | RuntimeException e) {
            // gone meanwhile, or not readable
        }
        return -1;
    }
}
