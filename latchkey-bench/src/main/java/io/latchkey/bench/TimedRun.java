package io.latchkey.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a cycle on N named daemon threads for a warm-up and then a fixed measurement window, and counts the cycles
 * that started inside the window. A thread that throws ends the run with that error; a thread that does not come
 * back within a grace period after the window (a hung lock call) is reported, not waited for forever.
 */
public final class TimedRun {

    private static final int WARMUP = 0;
    private static final int MEASURE = 1;
    private static final int STOP = 2;

    private final String label;
    private final int threads;
    private final Duration warmup;
    private final Duration measure;

    public TimedRun(String label, int threads, Duration warmup, Duration measure) {
        this.label = label;
        this.threads = threads;
        this.warmup = warmup;
        this.measure = measure;
    }

    public RunResult run(Cycle.PerThread factory) throws InterruptedException {
        List<Cycle> perThread = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            perThread.add(factory.forThread(i));
        }
        Phase phase = new Phase();
        CountDownLatch started = new CountDownLatch(threads);
        CountDownLatch finished = new CountDownLatch(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] measured = new long[threads];
        long[] all = new long[threads];
        long[] workerAllocated = new long[threads];
        long[] workerSwitches = new long[threads];
        LatencyHistogram[] histograms = new LatencyHistogram[threads];
        List<Thread> workers = new ArrayList<>(threads);
        for (int i = 0; i < threads; i++) {
            int index = i;
            histograms[i] = new LatencyHistogram();
            Thread t = new Thread(() -> {
                Cycle cycle = perThread.get(index);
                LatencyHistogram histogram = histograms[index];
                long count = 0;
                long total = 0;
                long allocatedBefore = ResourceMeter.currentThreadAllocated();
                long switchesBefore = ResourceMeter.currentThreadContextSwitches();
                started.countDown();
                try {
                    while (true) {
                        int p = phase.value;
                        if (p == STOP) {
                            break;
                        }
                        long start = System.nanoTime();
                        cycle.run();
                        long took = System.nanoTime() - start;
                        total++;
                        if (p == MEASURE) {
                            count++;
                            histogram.record(took);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    phase.value = STOP;
                } finally {
                    measured[index] = count;
                    all[index] = total;
                    workerAllocated[index] = ResourceMeter.currentThreadAllocated() - allocatedBefore;
                    workerSwitches[index] = ResourceMeter.currentThreadContextSwitches() - switchesBefore;
                    finished.countDown();
                }
            }, "bench-" + label + "-" + i);
            t.setDaemon(true);
            workers.add(t);
        }
        long cpuBefore = ResourceMeter.processCpuNanos();
        long othersAllocatedBefore = ResourceMeter.liveThreadsAllocated();
        long othersSwitchesBefore = ResourceMeter.liveThreadsContextSwitches();
        workers.forEach(Thread::start);
        started.await();
        sleepUnlessStopped(phase, warmup);
        long measureStart = System.nanoTime();
        if (phase.value != STOP) {
            phase.value = MEASURE;
        }
        sleepUnlessStopped(phase, measure);
        phase.value = STOP;
        long measureEnd = System.nanoTime();
        boolean allBack = finished.await(Math.max(10, measure.toSeconds() * 2), TimeUnit.SECONDS);
        for (Thread t : workers) {
            // The workers' own counts are in workerAllocated; wait until they are gone from the live-thread sum.
            t.join(1_000);
        }
        long cpu = ResourceMeter.processCpuNanos() - cpuBefore;
        long allocated = ResourceMeter.liveThreadsAllocated() - othersAllocatedBefore;
        long switches = ResourceMeter.liveThreadsContextSwitches() - othersSwitchesBefore;
        Throwable error = failure.get();
        if (!allBack) {
            error = new IllegalStateException(String.format(
                    "%d of %d threads of '%s' did not return from a cycle within the grace period (hung lock call?)",
                    finished.getCount(), threads, label));
            workers.forEach(Thread::interrupt);
        }
        LatencyHistogram merged = new LatencyHistogram();
        long cycles = 0;
        long totalCycles = 0;
        for (int i = 0; i < threads; i++) {
            merged.add(histograms[i]);
            cycles += measured[i];
            totalCycles += all[i];
        }
        for (int i = 0; i < threads; i++) {
            allocated += workerAllocated[i];
            switches += workerSwitches[i];
        }
        double seconds = (measureEnd - measureStart) / 1e9;
        boolean metered = cpuBefore >= 0 && othersAllocatedBefore >= 0 && totalCycles > 0;
        return new RunResult(cycles / seconds, totalCycles, merged.percentile(0.50), merged.percentile(0.99),
                metered ? (double) cpu / totalCycles : Double.NaN,
                metered ? (double) allocated / totalCycles : Double.NaN,
                othersSwitchesBefore >= 0 && totalCycles > 0 ? (double) switches / totalCycles : Double.NaN, error);
    }

    private static void sleepUnlessStopped(Phase phase, Duration duration) throws InterruptedException {
        long deadline = System.nanoTime() + duration.toNanos();
        long left;
        while (phase.value != STOP && (left = deadline - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(50)));
        }
    }

    /** Written by the coordinator, read by every worker before each cycle. */
    private static final class Phase {
        volatile int value = WARMUP;
    }

    /**
     * One run's outcome.
     *
     * @param cyclesPerSecond cycles that started inside the measurement window, per second of that window
     * @param totalCycles every cycle including the warm-up, to divide server command counts by
     * @param p50Nanos median cycle latency inside the window
     * @param p99Nanos 99th percentile cycle latency inside the window
     * @param cpuNanosPerCycle JVM CPU time over the whole run (warm-up included) per cycle, NaN if unknown
     * @param allocatedBytesPerCycle bytes allocated by every thread over the whole run per cycle, NaN if unknown
     * @param contextSwitchesPerCycle voluntary context switches of all threads over the whole run per cycle (Linux
     *        only, else NaN): how often a cycle parks one thread and wakes another
     * @param error the first failure, or null
     */
    public record RunResult(double cyclesPerSecond, long totalCycles, long p50Nanos, long p99Nanos, double cpuNanosPerCycle,
            double allocatedBytesPerCycle, double contextSwitchesPerCycle, Throwable error) {
        public boolean ok() {
            return error == null;
        }
    }
}
