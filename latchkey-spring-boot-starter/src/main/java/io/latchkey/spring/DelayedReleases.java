package io.latchkey.spring;

import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
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
            synchronized (this) { // no I/O here: creating the executor only
                e = executor;
                if (e == null) {
                    e = new ScheduledThreadPoolExecutor(1, r -> {
                        Thread t = new Thread(r, "latchkey-schedule-release");
                        t.setDaemon(true);
                        return t;
                    });
                    e.setRemoveOnCancelPolicy(true);
                    executor = e;
                }
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
