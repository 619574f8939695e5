package io.latchkey.core.internal.election;

import io.latchkey.Leadership;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.core.internal.LeaseBounds;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Leadership}: the watchdog lease of the election lock (validity, term, loss signal) plus the lease of
 * the leader record that names this leader to observers. The record is best effort: losing it only hides the
 * leader from {@code currentLeader()}; it never ends the leadership.
 */
final class LockLeadership implements Leadership {
    private static final Logger log = LoggerFactory.getLogger(LockLeadership.class);

    private final String election;
    private final String candidateId;
    private final LockLease lease;
    private final Instant since;
    private final long grantedAtNanos;
    private final AtomicBoolean resigned = new AtomicBoolean();
    private final AtomicBoolean ended = new AtomicBoolean();
    private final List<Runnable> endListeners = new CopyOnWriteArrayList<>();
    private volatile LockLease record;

    /** @param grantedAtNanos when the election lock's grant arrived, on the engine's clock */
    LockLeadership(String election, String candidateId, LockLease lease, Instant since, long grantedAtNanos) {
        this.grantedAtNanos = grantedAtNanos;
        this.election = election;
        this.candidateId = candidateId;
        this.lease = lease;
        this.since = since;
        lease.onLost(this::lost);
    }

    /** Attaches the leader record; released at once if the leadership already ended. */
    void record(LockLease recordLease) {
        this.record = recordLease;
        if (ended.get()) {
            releaseRecord();
        }
    }

    /**
     * Runs {@code listener} once when this leadership ends, lost or resigned (at once if it already has); for the
     * candidacy loop, which must also wake on a resignation.
     */
    void whenEnded(Runnable listener) {
        endListeners.add(listener);
        if (ended.get() && endListeners.remove(listener)) {
            listener.run();
        }
    }

    private void lost() {
        log.warn("leadership of election '{}' (candidate {}, term {}) was lost", election, candidateId,
                lease.fencingToken());
        end();
    }

    private void end() {
        if (ended.compareAndSet(false, true)) {
            releaseRecord();
            for (Runnable r : endListeners) {
                if (endListeners.remove(r)) {
                    try {
                        r.run();
                    } catch (RuntimeException e) {
                        log.warn("an end listener of election '{}' threw", election, e);
                    }
                }
            }
        }
    }

    private void releaseRecord() {
        LockLease r = record;
        if (r != null) {
            r.releaseAsync().whenComplete((v, e) -> {
                if (e != null) {
                    log.debug("releasing the leader record of election '{}' failed (it expires with its lease)",
                            election, e);
                }
            });
        }
    }

    @Override
    public String electionName() {
        return election;
    }

    @Override
    public String candidateId() {
        return candidateId;
    }

    @Override
    public long term() {
        return lease.fencingToken();
    }

    @Override
    public Instant since() {
        return since;
    }

    @Override
    public boolean isValid() {
        return !resigned.get() && lease.isValid() && LeaseBounds.confirmed(lease, grantedAtNanos);
    }

    @Override
    public void onRevoked(Runnable listener) {
        Objects.requireNonNull(listener, "listener");
        lease.onLost(listener);
    }

    @Override
    public void removeOnRevoked(Runnable listener) {
        lease.removeOnLost(listener);
    }

    /** Resigns: the election lock is released first, so that the next candidate is elected as soon as possible. */
    @Override
    public void close() {
        if (!resigned.compareAndSet(false, true)) {
            return;
        }
        try {
            lease.release();
        } catch (LockLostException e) {
            log.debug("resigned a leadership of election '{}' that was already lost", election);
        } finally {
            end();
        }
    }

    /**
     * {@link #close()} without blocking a thread, for a leadership nobody will see (its campaign was cancelled while
     * it was won).
     */
    void resignAsync() {
        if (!resigned.compareAndSet(false, true)) {
            return;
        }
        lease.releaseAsync().whenComplete((v, e) -> {
            if (e != null) {
                log.debug("resigning a leadership of election '{}' failed (it ends with its lease)", election, e);
            }
            end();
        });
    }

    @Override
    public String toString() {
        return "Leadership{election='" + election + "', candidate=" + candidateId + ", term=" + lease.fencingToken()
                + ", since=" + since + ", valid=" + isValid() + "}";
    }
}
