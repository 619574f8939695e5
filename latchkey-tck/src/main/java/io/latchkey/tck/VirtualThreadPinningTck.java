package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Virtual threads waiting on the blocking API do not pin their carriers: 5,000 virtual threads (20,000 lock cycles
 * over 50 names, and 1,000 semaphore permits) through one client, recorded by JFR after a warm-up, produce no
 * {@code jdk.VirtualThreadPinned} event of 5 ms or more.
 *
 * <p>JDK 25 only: from JDK 24 on, a virtual thread blocking inside {@code synchronized} unmounts (JEP 491), so what
 * is left to pin is ours — a wait inside a native frame or a class initializer, a driver call made on the waiting
 * thread. On JDK 21–23 every {@code synchronized} block that waits pins, including the drivers' (see
 * docs/virtual-threads.md); the test is about our code, so it runs on the JDK where theirs no longer pins.
 */
public abstract class VirtualThreadPinningTck extends TckBase {

    private static final String PINNED = "jdk.VirtualThreadPinned";
    private static final Duration THRESHOLD = Duration.ofMillis(5);
    private static final int NAMES = 50;
    private static final int CYCLES_PER_THREAD = 4;
    private static final int PERMIT_EVERY = 5; // one thread in five takes a permit: 1,000 of 5,000
    private static final int PERMITS_AT_ONCE = 8;

    /**
     * A watchdog of at least 10 s and a 10 s operation timeout: 5,000 threads on a busy 2-core machine can starve
     * the watchdog's renewals past a 1 s lease, and a lost lock is not what this test is about.
     */
    @Override
    protected ClientOptions options() {
        Duration watchdog = watchdogTimeout().compareTo(Duration.ofSeconds(10)) > 0 ? watchdogTimeout()
                : Duration.ofSeconds(10);
        return ClientOptions.builder().watchdogTimeout(watchdog).operationTimeout(Duration.ofSeconds(10)).build();
    }

    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void fiveThousandVirtualThreadsPinNoCarrierFor5Ms() throws Exception {
        Assumptions.assumeTrue(Runtime.version().feature() >= 25,
                "the JFR pinning check is JDK 25 only (running " + Runtime.version() + "): before JDK 24 drivers' "
                        + "synchronized blocks pin by design; test.sh reruns this class on JDK 25");
        assertThat(jdk.jfr.FlightRecorder.getFlightRecorder().getEventTypes())
                .as("JFR still records %s (a renamed event would make this test pass vacuously)", PINNED)
                .anyMatch(type -> type.getName().equals(PINNED));
        LockClient c = client();
        String prefix = newName();
        DistributedSemaphore permits = c.semaphore(prefix + ":permits");
        assertThat(permits.trySetPermits(PERMITS_AT_ONCE)).isTrue();

        long warmUp = run(c, prefix, permits, 500); // class loading, connections, JIT: not what this test is about

        Path file = Files.createTempFile("latchkey-pinning-", ".jfr");
        try {
            long measured;
            try (Recording recording = new Recording()) {
                recording.enable(PINNED).withThreshold(THRESHOLD).withStackTrace();
                recording.start();
                measured = run(c, prefix, permits, 5_000);
                recording.stop();
                recording.dump(file);
            }
            List<RecordedEvent> pinned = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().equals(PINNED))
                    .collect(Collectors.toList());
            assertThat(pinned).as("%s events of %d ms or more (%s backend):%n%s", PINNED, THRESHOLD.toMillis(),
                    backendName(), describe(pinned)).isEmpty();
            System.out.printf("%s: warm-up 500 virtual threads in %d ms; 5,000 virtual threads (%d lock cycles over "
                            + "%d names, %d permits) in %d ms; no pinned carrier >= %d ms%n", getClass().getSimpleName(),
                    warmUp, 5_000 * CYCLES_PER_THREAD, NAMES, 5_000 / PERMIT_EVERY, measured, THRESHOLD.toMillis());
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** {@code threads} virtual threads, each 4 lock cycles (lease and thread-owned API alternating); every fifth takes a permit. */
    private long run(LockClient c, String prefix, DistributedSemaphore permits, int threads) throws Exception {
        AtomicIntegerArray inside = new AtomicIntegerArray(NAMES);
        AtomicIntegerArray overlaps = new AtomicIntegerArray(NAMES);
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        CountDownLatch start = new CountDownLatch(1);
        long began = System.nanoTime();
        ExecutorService executor = newVirtualThreadExecutor("tck-pinning-");
        try {
            for (int t = 0; t < threads; t++) {
                int thread = t;
                executor.execute(() -> {
                    try {
                        start.await();
                        for (int k = 0; k < CYCLES_PER_THREAD; k++) {
                            int n = (thread * CYCLES_PER_THREAD + k) % NAMES;
                            DistributedLock lock = c.lock(prefix + ":" + n);
                            if ((thread + k) % 2 == 0) {
                                try (LockLease lease = lock.acquire()) {
                                    enter(inside, overlaps, n);
                                }
                            } else {
                                lock.lock();
                                try {
                                    enter(inside, overlaps, n);
                                } finally {
                                    lock.unlock();
                                }
                            }
                        }
                        if (thread % PERMIT_EVERY == 0) {
                            permits.acquire();
                            permits.release();
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                });
            }
            start.countDown();
            executor.shutdown();
            assertThat(executor.awaitTermination(240, TimeUnit.SECONDS))
                    .as("%d virtual threads finished within 240 s", threads).isTrue();
        } finally {
            executor.shutdownNow();
        }
        assertThat(failures).as("failures of the virtual threads").isEmpty();
        for (int n = 0; n < NAMES; n++) {
            assertThat(overlaps.get(n)).as("holders of name %d overlapping", n).isZero();
        }
        return millisSince(began);
    }

    private static void enter(AtomicIntegerArray inside, AtomicIntegerArray overlaps, int n) {
        if (inside.incrementAndGet(n) != 1) {
            overlaps.incrementAndGet(n);
        }
        Thread.yield();
        inside.decrementAndGet(n);
    }

    private static String describe(List<RecordedEvent> events) {
        StringBuilder s = new StringBuilder();
        for (RecordedEvent e : events.subList(0, Math.min(5, events.size()))) {
            s.append(e.getDuration().toMillis()).append(" ms on ").append(e.getThread() == null ? "?"
                    : e.getThread().getJavaName()).append('\n');
            if (e.getStackTrace() != null) {
                for (RecordedFrame f : e.getStackTrace().getFrames().subList(0,
                        Math.min(25, e.getStackTrace().getFrames().size()))) {
                    s.append("    at ").append(f.getMethod().getType().getName()).append('.')
                            .append(f.getMethod().getName()).append(':').append(f.getLineNumber()).append('\n');
                }
            }
        }
        return s.toString();
    }

    /** A virtual-thread-per-task executor with named threads, through reflection so that this compiles on 17. */
    private static ExecutorService newVirtualThreadExecutor(String prefix) throws ReflectiveOperationException {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        builder = builderType.getMethod("name", String.class, long.class).invoke(builder, prefix, 0L);
        ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
        Method perTask = Executors.class.getMethod("newThreadPerTaskExecutor", ThreadFactory.class);
        return (ExecutorService) perTask.invoke(null, factory);
    }
}
