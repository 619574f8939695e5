package io.latchkey.bench;

import java.lang.management.ManagementFactory;
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
