package io.latchkey.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.lang.management.ThreadMXBean;

/**
 * The client-side cost of a run: CPU time of the whole JVM (every thread: callers, I/O event loops, timers, GC)
 * and bytes allocated by every thread. On a machine whose cores are shared with other work, throughput swings
 * with the load, but CPU and allocation per cycle barely do, so they show where a client spends its time.
 */
final class ResourceMeter {

    private static final com.sun.management.OperatingSystemMXBean OS = operatingSystem();
    private static final com.sun.management.ThreadMXBean THREADS = threads();

    private ResourceMeter() {
    }

    /** Process CPU nanoseconds so far, or -1 if the JVM cannot tell. */
    static long processCpuNanos() {
        return OS == null ? -1 : OS.getProcessCpuTime();
    }

    /**
     * Bytes allocated so far by the threads alive now, or -1 if unsupported. Threads that end between two readings
     * take their share with them, so the harness's own workers report theirs with {@link #currentThreadAllocated()}.
     */
    static long liveThreadsAllocated() {
        if (THREADS == null) {
            return -1;
        }
        long sum = 0;
        for (long bytes : THREADS.getThreadAllocatedBytes(THREADS.getAllThreadIds())) {
            if (bytes > 0) {
                sum += bytes;
            }
        }
        return sum;
    }

    static long currentThreadAllocated() {
        return THREADS == null ? -1 : THREADS.getCurrentThreadAllocatedBytes();
    }

    /**
     * Voluntary context switches (a thread blocked: parked, waited on a socket, slept) so far of every live thread
     * of this process, from Linux's {@code /proc/self/task/}, or -1 elsewhere. Each hand-off of a lock cycle from
     * one thread to another costs a park and an unpark, so this counts hand-offs, which on a busy machine each
     * wait for a free core.
     */
    static long liveThreadsContextSwitches() {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) {
            return -1;
        }
        long sum = 0;
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(tasks)) {
            for (Path task : dir) {
                long n = voluntarySwitches(task.resolve("status"));
                if (n > 0) {
                    sum += n;
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return sum;
    }

    /** The calling thread's voluntary context switches so far, or -1 where unknown. */
    static long currentThreadContextSwitches() {
        return voluntarySwitches(Path.of("/proc/thread-self/status"));
    }

    private static long voluntarySwitches(Path status) {
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith("voluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (IOException | RuntimeException e) {
            // a thread that ended meanwhile, or not Linux
        }
        return -1;
    }

    private static com.sun.management.OperatingSystemMXBean operatingSystem() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os : null;
    }

    private static com.sun.management.ThreadMXBean threads() {
        ThreadMXBean bean = ManagementFactory.getThreadMXBean();
        if (bean instanceof com.sun.management.ThreadMXBean t && t.isThreadAllocatedMemorySupported()) {
            t.setThreadAllocatedMemoryEnabled(true);
            return t;
        }
        return null;
    }
}
