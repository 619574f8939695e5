package io.latchkey.bench.sizing;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.bench.BenchOptions;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The held-locks row of the sizing suite: {@code --held} distinct locks taken in watchdog mode by 16 threads of one
 * client (watchdog timeout {@code --watchdog}, renewal every third of it), then, while nothing but the watchdog
 * runs, the servers' resident memory against before and the CPU the servers and the client spend per second over a
 * window of at least one watchdog timeout (three renewal rounds). The holders release everything at the end.
 */
final class HeldLocks {

    private static final int HOLDERS = 16;

    private HeldLocks() {
    }

    static String measure(Topology topology, BenchOptions options) throws Exception {
        int n = options.held();
        Duration watchdog = options.watchdog();
        Duration window = options.measure().compareTo(watchdog) > 0 ? options.measure() : watchdog;
        ClientOptions clientOptions = ClientOptions.builder().watchdogTimeout(watchdog).build();
        System.err.printf(Locale.ROOT, "   %s, %,d held locks%n", topology.key(), n);
        try (LockClient client = topology.connect(clientOptions)) {
            String prefix = "sizing:held:" + Long.toHexString(System.nanoTime()) + ":";
            // What the servers spend with this client connected and nothing held: pings, timers, a JVM's own work.
            Map<Long, Long> idleBefore = ServerProcesses.cpuNanosByNode();
            long idleStart = System.nanoTime();
            Thread.sleep(window.toMillis());
            double idleSeconds = (System.nanoTime() - idleStart) / 1e9;
            long idleCpu = ServerProcesses.delta(idleBefore, ServerProcesses.cpuNanosByNode())[0];
            long rssBefore = ServerProcesses.rssBytes();
            CountDownLatch acquired = new CountDownLatch(HOLDERS);
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch released = new CountDownLatch(HOLDERS);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            List<Thread> holders = new ArrayList<>();
            long start = System.nanoTime();
            for (int h = 0; h < HOLDERS; h++) {
                int first = h;
                Thread t = new Thread(() -> hold(client, prefix, first, n, acquired, release, released, failure),
                        "bench-sizing-holder-" + h);
                t.setDaemon(true);
                holders.add(t);
                t.start();
            }
            try {
                acquired.await();
                double acquireSeconds = (System.nanoTime() - start) / 1e9;
                if (failure.get() != null) {
                    return String.format("Holding %,d locks failed: %s%n%n", n, failure.get());
                }
                Thread.sleep(1000);
                long rssHeld = ServerProcesses.rssBytes();
                Map<Long, Long> before = ServerProcesses.cpuNanosByNode();
                long clientBefore = clientCpuNanos();
                long windowStart = System.nanoTime();
                Thread.sleep(window.toMillis());
                double seconds = (System.nanoTime() - windowStart) / 1e9;
                long[] server = ServerProcesses.delta(before, ServerProcesses.cpuNanosByNode());
                long clientCpu = clientCpuNanos() - clientBefore;
                double renewals = n * seconds / (watchdog.toMillis() / 3000.0);
                double idlePerSecond = idleCpu / idleSeconds;
                double keepPerSecond = Math.max(0, server[0] / seconds - idlePerSecond);
                StringBuilder md = new StringBuilder();
                md.append(String.format(Locale.ROOT, "Held locks (watchdog %s s, renewal every %.1f s), %d holder "
                                + "threads, measured over %.0f s with nothing else running, after as long connected and idle:%n%n",
                        SizingSuite.seconds(watchdog), watchdog.toMillis() / 3000.0, HOLDERS, seconds));
                md.append("| held locks | taken in s (locks/s) | server memory (Pss) before → held (MB) "
                        + "| memory per held lock | server CPU idle → held (% of a core) | server µs per lock renewal "
                        + "| client CPU held (% of a core) |\n");
                md.append("|---:|---:|---:|---:|---:|---:|---:|\n");
                md.append(String.format(Locale.ROOT, "| %,d | %.1f (%,.0f) | %,.1f → %,.1f | %,d B | %.2f → %.2f | %.2f | %.2f |%n%n",
                        n, acquireSeconds, n / acquireSeconds, rssBefore / 1e6, rssHeld / 1e6,
                        (rssHeld - rssBefore) / n, idlePerSecond / 1e7, server[0] / 1e7 / seconds,
                        keepPerSecond * seconds / 1e3 / renewals, clientCpu / 1e7 / seconds));

                return md.toString();
            } finally {
                release.countDown();
                if (!released.await(120, TimeUnit.SECONDS)) {
                    holders.forEach(Thread::interrupt);
                }
            }
        }
    }

    private static void hold(LockClient client, String prefix, int first, int n, CountDownLatch acquired,
                             CountDownLatch release, CountDownLatch released, AtomicReference<Throwable> failure) {
        List<DistributedLock> held = new ArrayList<>();
        try {
            for (int i = first; i < n && failure.get() == null; i += HOLDERS) {
                DistributedLock lock = client.lock(prefix + i);
                lock.lock();
                held.add(lock);
            }
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        } finally {
            acquired.countDown();
        }
        try {
            release.await();
            for (DistributedLock lock : held) {
                try {
                    lock.unlock();
                } catch (RuntimeException e) {
                    System.err.println("could not release " + lock.name() + ": " + e);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            released.countDown();
        }
    }

    private static long clientCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }
}
