package io.latchkey.core.internal;

import io.latchkey.core.TimeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The simulation's only source of time and concurrency: a virtual clock and one queue of events, run one at a time on
 * the test's thread in (time, sequence) order. It is every client's watchdog timer and callback executor and the
 * simulated network, so a run is a pure function of its seed.
 */
final class SimScheduler implements TimeSource {

    private final PriorityQueue<Event> queue = new PriorityQueue<>();
    private long now = 1_000_000_000L;
    private long seq;
    private long executed;
    /** Whether a task due at once runs inline, inside the call that schedules it (a seeded choice). */
    java.util.function.BooleanSupplier inlineDue = () -> false;

    @Override
    public long nanoTime() {
        return now;
    }

    long executed() {
        return executed;
    }

    /** Runs {@code task} {@code delayNanos} from now (at least 0). */
    Event at(long delayNanos, Runnable task) {
        Event e = new Event(now + Math.max(0, delayNanos), seq++, task, 0);
        queue.add(e);
        return e;
    }

    /** Runs events until the queue is empty or the clock would pass {@code until}; returns whether any remain. */
    boolean runUntil(long until, Runnable afterEach) {
        for (;;) {
            Event e = queue.peek();
            if (e == null) {
                now = Math.max(now, until);
                return false;
            }
            if (e.time - until > 0) {
                now = until;
                return true;
            }
            queue.poll();
            if (e.cancelled) {
                continue;
            }
            now = e.time;
            executed++;
            e.fire();
            if (afterEach != null) {
                afterEach.run();
            }
        }
    }

    /** A client's timer and callback executor on this scheduler; {@link #shutdownNow()} drops its pending tasks. */
    Timers timers() {
        return new Timers();
    }

    final class Timers extends AbstractExecutorService implements ScheduledExecutorService {
        private final List<Event> events = new ArrayList<>();
        private boolean shut;

        private Event track(Event e) {
            if (shut) {
                throw new java.util.concurrent.RejectedExecutionException("client closed");
            }
            events.removeIf(Event::isDone);
            events.add(e);
            return e;
        }

        /**
         * The clock these timers read jumped by {@code nanos}: every pending task moves with it, as a
         * {@code ScheduledThreadPoolExecutor}'s do (their trigger times are absolute on that clock): a forward jump
         * makes them due earlier (at once if overdue), a backward one later.
         */
        void shift(long nanos) {
            for (Event e : events) {
                if (!e.isDone() && queue.remove(e)) {
                    e.time = Math.max(now, e.time - nanos);
                    queue.add(e);
                }
            }
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            if (delay <= 0 && !shut && inlineDue.getAsBoolean()) {
                // the timer thread may run a task that is due at once before the scheduling thread goes on
                Event e = new Event(now, seq++, command, 0);
                e.fire();
                return e;
            }
            return track(at(unit.toNanos(delay), command));
        }

        @Override
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            throw new UnsupportedOperationException();
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                      TimeUnit unit) {
            if (shut) {
                throw new java.util.concurrent.RejectedExecutionException("client closed");
            }
            Event first = new Event(now + unit.toNanos(initialDelay), seq++, command, unit.toNanos(period));
            queue.add(first);
            return track(first);
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                         TimeUnit unit) {
            return scheduleAtFixedRate(command, initialDelay, delay, unit);
        }

        @Override
        public void execute(Runnable command) {
            track(at(0, command));
        }

        @Override
        public void shutdown() {
            // callbacks already handed over still run (as the real pool's do); only timers stop
        }

        @Override
        public List<Runnable> shutdownNow() {
            shut = true;
            for (Event e : events) {
                e.cancel(false);
            }
            events.clear();
            return new ArrayList<>();
        }

        @Override
        public boolean isShutdown() {
            return shut;
        }

        @Override
        public boolean isTerminated() {
            return shut;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }

    /** One scheduled task; a periodic one re-queues itself (keeping its identity, so that cancel stops it). */
    final class Event implements ScheduledFuture<Object>, Comparable<Delayed> {
        long time;
        long order;
        final Runnable task;
        final long period;
        boolean cancelled;
        boolean done;

        Event(long time, long order, Runnable task, long period) {
            this.time = time;
            this.order = order;
            this.task = task;
            this.period = period;
        }

        void fire() {
            task.run();
            if (period > 0 && !cancelled) {
                time += period;
                order = seq++;
                queue.add(this);
            } else {
                done = true;
            }
        }

        @Override
        public int compareTo(Delayed o) {
            Event e = (Event) o;
            int c = Long.compare(time, e.time);
            return c != 0 ? c : Long.compare(order, e.order);
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(time - now, TimeUnit.NANOSECONDS);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (done || cancelled) {
                return false;
            }
            cancelled = true;
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public Object get() throws ExecutionException {
            throw new UnsupportedOperationException("nothing blocks in a simulation");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("nothing blocks in a simulation");
        }
    }
}
