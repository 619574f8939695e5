package io.latchkey.integration;

import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceFieldUpdater;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Releases the leases of scheduled runs ({@code @LockedSchedule}, {@code @LockedScheduled}) that ended before their
 * {@code lockAtLeastFor}. One thread, {@code latchkey-schedule-release}, started on first use and stopped by
 * {@link #close()}, which releases every lease still waiting at once (a stopping node should not keep its ticks
 * locked); a lease handed over after {@code close()} is released at once. A release that fails is logged, never
 * thrown: the lease then expires on the server.
 */
public final class DelayedReleases implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DelayedReleases.class);

    private final Set<LockLease> pending = ConcurrentHashMap.newKeySet();
    private volatile ScheduledThreadPoolExecutor executor;
    private static final AtomicReferenceFieldUpdater<DelayedReleases, ScheduledThreadPoolExecutor> EXECUTOR =
            AtomicReferenceFieldUpdater.newUpdater(DelayedReleases.class, ScheduledThreadPoolExecutor.class, "executor");
    private final String annotation;
    private volatile boolean closed;

    /**
     * Creates the releases; no thread starts before the first delayed release.
     *
     * @param annotation the annotation of the scheduled runs, such as {@code "@LockedSchedule"}, for the log
     */
    public DelayedReleases(String annotation) {
        this.annotation = annotation;
    }

    /**
     * Releases {@code lease} once {@code delay} has passed, or at {@link #close()} if that comes first; at once if
     * this is closed.
     *
     * @param lease the lease of a run that ended
     * @param delay what is left of its {@code lockAtLeastFor}
     */
    public void releaseAfter(LockLease lease, Duration delay) {
        if (closed) {
            release(annotation, lease);
            return;
        }
        pending.add(lease);
        try {
            executor().schedule(() -> {
                if (pending.remove(lease)) {
                    release(annotation, lease);
                }
            }, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            if (pending.remove(lease)) {
                release(annotation, lease);
            }
        }
    }

    private ScheduledThreadPoolExecutor executor() {
        ScheduledThreadPoolExecutor e = executor;
        if (e == null) {
            // no lock: a pool that loses the race never started a thread (threads start with the first task)
            ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "latchkey-schedule-release");
                thread.setDaemon(true);
                return thread;
            });
            created.setRemoveOnCancelPolicy(true);
            if (EXECUTOR.compareAndSet(this, null, created)) {
                e = created;
            } else {
                created.shutdownNow();
                e = executor;
            }
        }
        return e;
    }

    /**
     * Releases {@code lease} now; a lease lost meanwhile, or a release the backend cannot answer, is logged (the lease
     * then expires on the server), never thrown.
     *
     * @param annotation the annotation of the scheduled run, such as {@code "@LockedSchedule"}, for the log
     * @param lease the lease of a run that ended
     */
    public static void release(String annotation, LockLease lease) {
        try {
            lease.release();
        } catch (LockLostException e) {
            LOG.warn("{} lock '{}' was lost before its lockAtLeastFor ended", annotation, lease.lockName());
        } catch (LockUnavailableException e) {
            LOG.warn("{} lock '{}' could not be released (it expires on the server): {}",
                    annotation, lease.lockName(), e.getMessage());
        }
    }

    /** {@return whether {@link #close()} was called: the application is stopping} */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Stops the thread (waiting up to 5 seconds for a release under way) and releases every lease still waiting.
     * Restores the interrupt flag if interrupted while waiting.
     */
    @Override
    public void close() {
        closed = true;
        ScheduledThreadPoolExecutor e = executor;
        if (e != null) {
            e.shutdownNow();
            try {
                e.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        for (LockLease lease : pending) {
            if (pending.remove(lease)) {
                release(annotation, lease);
            }
        }
    }
}
