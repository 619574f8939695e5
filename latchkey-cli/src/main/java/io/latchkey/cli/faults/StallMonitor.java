package io.latchkey.cli.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Measures how much machine time the run lost: one thread sleeps 50 ms at a time and records every wake-up that
 * came more than 100 ms late. On an overloaded host (a CI machine shared by many builds) every process is starved
 * alike, so the timing rules (next grant within lease + 1 s, no worker stuck) allow the lost time on top of their
 * bounds; the safety rules never do.
 *
 * <p>Thread: {@code latchkey-faults-stall-monitor}, a daemon, ended by {@link #close()}.
 */
final class StallMonitor implements AutoCloseable {

    private static final long TICK = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long LATE = TimeUnit.MILLISECONDS.toNanos(100);

    private final ReentrantLock lock = new ReentrantLock();
    private final List<long[]> stalls = new ArrayList<>();
    private final Thread thread;
    private volatile boolean closed;

    StallMonitor() {
        thread = new Thread(this::run, "latchkey-faults-stall-monitor");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!closed) {
            long before = System.nanoTime();
            try {
                Thread.sleep(TimeUnit.NANOSECONDS.toMillis(TICK));
            } catch (InterruptedException e) {
                return;
            }
            long late = System.nanoTime() - before - TICK;
            if (late > LATE) {
                lock.lock();
                try {
                    stalls.add(new long[] {before + TICK, late});
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** The machine time lost (late wake-ups) between two {@code nanoTime} stamps. */
    long stalledNanos(long from, long to) {
        lock.lock();
        try {
            long sum = 0;
            for (long[] s : stalls) {
                if (s[0] - from >= 0 && s[0] - to <= 0) {
                    sum += s[1];
                }
            }
            return sum;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
