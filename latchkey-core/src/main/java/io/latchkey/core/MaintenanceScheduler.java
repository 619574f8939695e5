package io.latchkey.core;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The client's one scheduler, lent to its backend for maintenance: retried removals, time bounds of operations,
 * keep-alives, periodic clean-ups, re-checks after a reconnect. It is the thread that runs the engine's own timers (the
 * watchdog's renewal tick, fixed-lease ends, waiters' deadlines and re-checks), named
 * {@code latchkey-<backend>-watchdog-<first 8 characters of the client id>}, a daemon; a backend starts no scheduler
 * thread of its own ({@link AbstractLockClient#scheduler()}).
 *
 * <p><b>Tasks must not block.</b> A task runs on the thread that renews every watchdog lease: a task that waited
 * for a network answer, a lock held across I/O, or a sleep would delay renewals until holds are lost. A task only
 * starts asynchronous calls and updates local state under short locks; work that must block (a driver without an
 * asynchronous API) runs on the backend's own I/O threads, and the task merely hands it over.
 *
 * <p><b>Failures.</b> A {@link RuntimeException} thrown by a task is logged; a periodic task keeps running.
 *
 * <p><b>Lifetime.</b> The thread starts with the first task and ends when it has had nothing to do for a few seconds,
 * or when the client closes: after {@link AbstractLockClient#closeBackend()} has returned, so the backend's
 * retries and time bounds still run while the client releases its holds on close. From then on scheduling throws
 * {@link java.util.concurrent.RejectedExecutionException} and pending tasks are dropped (as with
 * {@link java.util.concurrent.ScheduledExecutorService#shutdownNow()}).
 */
public interface MaintenanceScheduler {

    /**
     * Runs {@code task} once after {@code delay}, as {@link java.util.concurrent.ScheduledExecutorService#schedule}.
     *
     * @throws java.util.concurrent.RejectedExecutionException once the client has closed
     */
    ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit);

    /**
     * Runs {@code task} after {@code initialDelay}, then {@code delay} after each run ends, until cancelled or the
     * client closes, as {@link java.util.concurrent.ScheduledExecutorService#scheduleWithFixedDelay}.
     *
     * @throws java.util.concurrent.RejectedExecutionException once the client has closed
     */
    ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long initialDelay, long delay, TimeUnit unit);

    /**
     * Runs {@code task} soon on the scheduler's thread: to leave a driver's I/O or event thread before more work.
     *
     * @throws java.util.concurrent.RejectedExecutionException once the client has closed
     */
    void execute(Runnable task);

    /** {@return whether the client has closed and the scheduler runs nothing any more} */
    boolean isShutdown();

    /**
     * {@return a scheduler on {@code executor}, which the caller owns and shuts down} For a backend's parts used
     * without a client (tests, tools); the rules above apply to its tasks all the same.
     *
     * @param executor the executor that runs the tasks
     */
    static MaintenanceScheduler of(java.util.concurrent.ScheduledExecutorService executor) {
        java.util.Objects.requireNonNull(executor, "executor");
        return new MaintenanceScheduler() {
            @Override
            public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
                return executor.schedule(task, delay, unit);
            }

            @Override
            public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long initialDelay, long delay,
                                                             TimeUnit unit) {
                return executor.scheduleWithFixedDelay(task, initialDelay, delay, unit);
            }

            @Override
            public void execute(Runnable task) {
                executor.execute(task);
            }

            @Override
            public boolean isShutdown() {
                return executor.isShutdown();
            }
        };
    }
}
