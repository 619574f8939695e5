package io.latchkey.micronaut;

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
 * Releases the leases of {@link LockedSchedule} runs that ended before their {@code lockAtLeastFor}. One thread,
 * {@code latchkey-schedule-release}, started on first use and stopped by {@link #close()}, which releases every lease
 * still waiting at once (a stopping node should not keep its ticks locked).
 */
final class DelayedReleases implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(DelayedReleases.class);

    private final Set<LockLease> pending = ConcurrentHashMap.newKeySet();
    private volatile ScheduledThreadPoolExecutor executor;
    private static final AtomicReferenceFieldUpdater<DelayedReleases, ScheduledThreadPoolExecutor> EXECUTOR =
            AtomicReferenceFieldUpdater.newUpdater(DelayedReleases.class, ScheduledThreadPoolExecutor.class, "executor");
    private volatile boolean closed;

    void releaseAfter(LockLease lease, Duration delay) {
        if (closed) {
            release(lease);
            return;
        }
        pending.add(lease);
        try {
            executor().schedule(() -> {
                if (pending.remove(lease)) {
                    release(lease);
                }
            }, delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closing) {
            if (pending.remove(lease)) {
                release(lease);
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

    static void release(LockLease lease) {
        try {
            lease.release();
        } catch (LockLostException e) {
            LOG.warn("@LockedSchedule lock '{}' was lost before its lockAtLeastFor ended", lease.lockName());
        } catch (LockUnavailableException e) {
            LOG.warn("@LockedSchedule lock '{}' could not be released (it expires on the server): {}",
                    lease.lockName(), e.getMessage());
        }
    }

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
                release(lease);
            }
        }
    }
}
