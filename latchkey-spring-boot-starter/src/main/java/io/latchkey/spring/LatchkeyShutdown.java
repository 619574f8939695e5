package io.latchkey.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * The order in which an application stops its locked work when its context closes: new {@link Locked} calls fail
 * fast and {@link LockedSchedule} ticks are skipped, running locked methods get the grace period to end (their
 * locks are released as they return), what still runs after it is interrupted, and only then — when Spring destroys
 * the beans — the client closes and releases whatever is left.
 *
 * <p>A {@link SmartLifecycle} in phase {@link #PHASE}: after the web server's graceful shutdown (phase
 * {@code DEFAULT_PHASE - 1024}), so requests still in flight may call {@code @Locked} methods, and before the web
 * server stops ({@code DEFAULT_PHASE - 2048}) and the task scheduler stops ({@code DEFAULT_PHASE / 2}). Its stop
 * runs on a thread of its own, {@code latchkey-spring-shutdown}, which ends when the work has ended or was
 * interrupted; Spring waits for it at most {@code spring.lifecycle.timeout-per-shutdown-phase}, so the grace period
 * (by default that timeout less a margin for the interrupt) ends before Spring gives up on the phase.
 */
final class LatchkeyShutdown implements SmartLifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(LatchkeyShutdown.class);

    /** After the web server's graceful shutdown, before it stops and before the task scheduler stops. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1536;

    static final String THREAD_NAME = "latchkey-spring-shutdown";

    private final Duration gracePeriod;
    private final Duration afterInterrupt;
    private final Set<Work> running = ConcurrentHashMap.newKeySet();
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled whenever a piece of work ends. */
    private final Condition ended = lock.newCondition();
    private volatile boolean started;
    private volatile boolean stopping;

    /**
     * @param gracePeriod how long running locked methods may go on after the context starts closing
     * @param afterInterrupt how long to wait for interrupted methods to end before the phase ends
     */
    LatchkeyShutdown(Duration gracePeriod, Duration afterInterrupt) {
        this.gracePeriod = gracePeriod;
        this.afterInterrupt = afterInterrupt;
    }

    /**
     * The grace period for a phase timeout: the timeout less a margin for the interrupted methods to end (a fifth
     * of it, at most 5 s).
     */
    static LatchkeyShutdown forPhaseTimeout(Duration configuredGrace, Duration phaseTimeout) {
        Duration margin = phaseTimeout.dividedBy(5);
        if (margin.compareTo(Duration.ofSeconds(5)) > 0) {
            margin = Duration.ofSeconds(5);
        }
        Duration grace = configuredGrace != null ? configuredGrace : phaseTimeout.minus(margin);
        return new LatchkeyShutdown(grace, margin);
    }

    /**
     * Starts tracking one locked method on the calling thread; {@code null} once the context is closing: the caller
     * then starts nothing (a {@code @Locked} call fails, a {@code @LockedSchedule} tick is skipped).
     */
    Work enter(String kind, String name) {
        if (stopping) {
            return null;
        }
        Work w = new Work(Thread.currentThread(), kind, name);
        running.add(w);
        if (stopping) {
            // the stop may have looked at the set before the add: do not start after all
            running.remove(w);
            signal();
            return null;
        }
        return w;
    }

    /** The locked method of {@code w} returned (or threw) and released its lock. */
    void exit(Work w) {
        w.finish();
        running.remove(w);
        signal();
    }

    /** Whether the context is closing: a lock lost now was our own close, not another node's. */
    boolean isStopping() {
        return stopping;
    }

    private void signal() {
        lock.lock();
        try {
            ended.signalAll();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void start() {
        stopping = false;
        started = true;
    }

    @Override
    public void stop() {
        stopping = true;
        drain();
        started = false;
    }

    @Override
    public void stop(Runnable callback) {
        stopping = true;
        if (running.isEmpty()) {
            started = false;
            callback.run();
            return;
        }
        Thread t = new Thread(() -> {
            try {
                drain();
            } finally {
                started = false;
                callback.run();
            }
        }, THREAD_NAME);
        t.setDaemon(true);
        t.start();
    }

    @Override
    public boolean isRunning() {
        return started;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /** Waits out the grace period, interrupts what still runs, waits a little more. */
    private void drain() {
        if (running.isEmpty()) {
            return;
        }
        LOG.info("shutting down: no new locked work; waiting up to {} ms for {} running locked method(s) to end: {}",
                gracePeriod.toMillis(), running.size(), running);
        if (awaitEmpty(gracePeriod)) {
            return;
        }
        for (Work w : new ArrayList<>(running)) {
            if (w.interrupt()) {
                LOG.warn("interrupted locked method {} (lock '{}') after the grace period of {} ms", w.kind, w.name,
                        gracePeriod.toMillis());
            }
        }
        if (!awaitEmpty(afterInterrupt)) {
            List<Work> left = new ArrayList<>(running);
            LOG.warn("locked method(s) {} still run {} ms after the interrupt; their locks are released when the "
                    + "lock client closes", left, afterInterrupt.toMillis());
        }
    }

    private boolean awaitEmpty(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (!running.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    ended.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return running.isEmpty();
                }
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * One locked method running on one thread. The interrupt is sent at most once and only while the method runs:
     * RUNNING until it returns (DONE) or is interrupted (INTERRUPTING while the interrupt is sent, then INTERRUPTED).
     */
    static final class Work {
        private static final int RUNNING = 0;
        private static final int DONE = 1;
        private static final int INTERRUPTING = 2;
        private static final int INTERRUPTED = 3;

        final Thread thread;
        final String kind;
        final String name;
        private final AtomicInteger state = new AtomicInteger(RUNNING);

        Work(Thread thread, String kind, String name) {
            this.thread = thread;
            this.kind = kind;
            this.name = name;
        }

        boolean interrupt() {
            if (!state.compareAndSet(RUNNING, INTERRUPTING)) {
                return false;
            }
            thread.interrupt();
            state.set(INTERRUPTED);
            return true;
        }

        /** Whether the shutdown interrupted this method. */
        boolean wasInterrupted() {
            return state.get() >= INTERRUPTING;
        }

        /** On the method's thread once it returned: our interrupt must not reach the thread's next task. */
        void finish() {
            if (state.compareAndSet(RUNNING, DONE)) {
                return;
            }
            while (state.get() == INTERRUPTING) {
                Thread.onSpinWait(); // the stopping thread is between its CAS and interrupt(): a few instructions
            }
            Thread.interrupted();
        }

        @Override
        public String toString() {
            return kind + " (lock '" + name + "', thread " + thread.getName() + ")";
        }
    }
}
