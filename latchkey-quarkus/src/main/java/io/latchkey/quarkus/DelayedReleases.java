package io.latchkey.quarkus;

import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.quarkus.runtime.ShutdownEvent;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jboss.logging.Logger;

/**
 * Releases the leases of {@link LockedScheduled} runs that ended before their {@code lockAtLeastFor}. One thread,
 * {@code latchkey-schedule-release}, started on first use and stopped at shutdown ({@link ShutdownEvent}, before the
 * client closes), which releases every lease still waiting at once (a stopping instance should not keep its ticks
 * locked).
 */
@Singleton
class DelayedReleases {

    private static final Logger LOG = Logger.getLogger(DelayedReleases.class);

    private final Set<LockLease> pending = ConcurrentHashMap.newKeySet();
    private final AtomicReference<ScheduledThreadPoolExecutor> executor = new AtomicReference<>();
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
        ScheduledThreadPoolExecutor e = executor.get();
        if (e == null) {
            // no lock: a pool that loses the race never started a thread (threads start with the first task)
            ScheduledThreadPoolExecutor created = new ScheduledThreadPoolExecutor(1, task -> {
                Thread thread = new Thread(task, "latchkey-schedule-release");
                thread.setDaemon(true);
                return thread;
            });
            created.setRemoveOnCancelPolicy(true);
            if (executor.compareAndSet(null, created)) {
                e = created;
            } else {
                created.shutdownNow();
                e = executor.get();
            }
        }
        return e;
    }

    static void release(LockLease lease) {
        try {
            lease.release();
        } catch (LockLostException e) {
            LOG.warnf("@LockedScheduled lock '%s' was lost before its lockAtLeastFor ended", lease.lockName());
        } catch (LockUnavailableException e) {
            LOG.warnf("@LockedScheduled lock '%s' could not be released (it expires on the server): %s",
                    lease.lockName(), e.getMessage());
        }
    }

    /** Whether the application is stopping: scheduled ticks that still fire then are skipped. */
    boolean stopping() {
        return closed;
    }

    void onShutdown(@Observes ShutdownEvent event) {
        close();
    }

    @PreDestroy
    void close() {
        closed = true;
        ScheduledThreadPoolExecutor e = executor.get();
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
