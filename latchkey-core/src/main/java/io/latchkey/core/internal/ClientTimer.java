package io.latchkey.core.internal;

import io.latchkey.core.MaintenanceScheduler;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's one timer thread: the {@link Watchdog}'s (renewals, fixed-lease ends, deadlines, re-checks) and, as
 * {@link MaintenanceScheduler}, the backend's maintenance. Started by its first task, ended after
 * {@link #IDLE_SECONDS} without one (so that a client whose backend failed in its constructor leaves no thread) or by
 * {@link #stop()}, which the client calls after its backend has closed.
 */
public final class ClientTimer implements MaintenanceScheduler {
    private static final Logger log = LoggerFactory.getLogger(ClientTimer.class);
    static final int IDLE_SECONDS = 10;

    private final ScheduledExecutorService executor;
    private final String threadName;
    private volatile Thread thread;

    /** @param given a simulation's scheduler, or {@code null} for a thread of this client's own */
    ClientTimer(String threadName, ScheduledExecutorService given) {
        this.threadName = threadName;
        if (given != null) {
            this.executor = given;
            return;
        }
        ScheduledThreadPoolExecutor own = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            thread = t;
            return t;
        });
        own.setRemoveOnCancelPolicy(true);
        own.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        own.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        own.setKeepAliveTime(IDLE_SECONDS, TimeUnit.SECONDS);
        own.allowCoreThreadTimeOut(true); // a worker ends only while nothing at all is scheduled
        this.executor = own;
    }

    ScheduledExecutorService executor() {
        return executor;
    }

    boolean isTimerThread() {
        return Thread.currentThread() == thread;
    }

    @Override
    public ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
        return executor.schedule(logged(task), delay, unit);
    }

    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable task, long initialDelay, long delay, TimeUnit unit) {
        return executor.scheduleWithFixedDelay(logged(task), initialDelay, delay, unit);
    }

    @Override
    public void execute(Runnable task) {
        executor.execute(logged(task));
    }

    @Override
    public boolean isShutdown() {
        return executor.isShutdown();
    }

    private Runnable logged(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.warn("{}: a backend task failed", threadName, e);
            }
        };
    }

    /**
     * Drops every pending task and ends the thread (waiting up to a second for a running task, unless on it): called
     * by the client once its backend has closed.
     */
    public void stop() {
        executor.shutdownNow();
        if (!isTimerThread()) {
            try {
                executor.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
