package io.latchkey.core.internal.election;

import io.latchkey.Candidacy;
import io.latchkey.LeaderElection;
import io.latchkey.Leadership;
import io.latchkey.LeadershipListener;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Candidacy}: one thread that campaigns, reports the leadership to the listener, waits for it to end,
 * reports that, and campaigns again — until {@link #close()} interrupts it.
 *
 * <p>After an error of the backend (unreachable, too slow), or an {@code elected()} callback that threw, it
 * campaigns again after a pause that doubles from 100 ms up to 5 s, so that neither spins.
 */
final class ElectionCandidacy implements Candidacy {
    private static final Logger log = LoggerFactory.getLogger(ElectionCandidacy.class);
    private static final long MAX_BACKOFF_MILLIS = 5_000;

    private final LockLeaderElection election;
    private final LeadershipListener listener;
    private final Consumer<ElectionCandidacy> onExit;
    private final Thread thread;
    private volatile boolean closed;
    private volatile LockLeadership current;

    ElectionCandidacy(LockLeaderElection election, LeadershipListener listener, String backendName,
                      Consumer<ElectionCandidacy> onExit) {
        this.election = election;
        this.listener = listener;
        this.onExit = onExit;
        String label = shorten(election.name()) + "-" + shorten(election.candidateId());
        this.thread = new Thread(this::run, "latchkey-" + backendName + "-election-" + label);
        this.thread.setDaemon(true);
    }

    private static String shorten(String s) {
        return s.length() > 32 ? s.substring(0, 32) : s;
    }

    void startThread() {
        thread.start();
    }

    private void run() {
        long backoff = 100;
        try {
            while (!closed) {
                LockLeadership leadership;
                try {
                    leadership = (LockLeadership) election.awaitLeadership();
                } catch (InterruptedException e) {
                    continue; // close() interrupts; the loop condition decides
                } catch (RuntimeException e) {
                    if (closed) {
                        break;
                    }
                    log.warn("campaign in election '{}' failed; retrying in {} ms: {}", election.name(), backoff,
                            e.toString());
                    try {
                        Thread.sleep(backoff);
                    } catch (InterruptedException ie) {
                        continue;
                    }
                    backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
                    continue;
                }
                if (lead(leadership)) {
                    backoff = 100;
                } else if (!closed) {
                    // elected() threw: do not win, fail and resign in a tight loop
                    try {
                        Thread.sleep(backoff);
                    } catch (InterruptedException e) {
                        continue;
                    }
                    backoff = Math.min(backoff * 2, MAX_BACKOFF_MILLIS);
                }
            }
        } finally {
            onExit.accept(this);
        }
    }

    /** Leads until the leadership ends; returns whether {@code elected()} returned normally. */
    private boolean lead(LockLeadership leadership) {
        boolean accepted = true;
        CountDownLatch ended = new CountDownLatch(1);
        leadership.whenEnded(ended::countDown);
        current = leadership;
        try {
            try {
                listener.elected(leadership);
            } catch (RuntimeException e) {
                log.warn("the elected() callback of election '{}' threw; resigning", election.name(), e);
                accepted = false;
                boolean interrupted = Thread.interrupted();
                resign(leadership);
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            while (!closed && ended.getCount() > 0) {
                try {
                    ended.await();
                } catch (InterruptedException e) {
                    // close() interrupts; the loop condition decides
                }
            }
            if (closed) {
                Thread.interrupted(); // close()'s interrupt must not abort the release
                resign(leadership);
            }
        } finally {
            current = null;
            Thread.interrupted(); // an interrupt from close() must not hit the revoked() callback
            try {
                listener.revoked(leadership);
            } catch (RuntimeException e) {
                log.warn("the revoked() callback of election '{}' threw", election.name(), e);
            }
        }
        return accepted;
    }

    private void resign(Leadership leadership) {
        try {
            leadership.close();
        } catch (RuntimeException e) {
            log.warn("resigning in election '{}' failed; the leadership expires with its lease: {}",
                    election.name(), e.toString());
        }
    }

    @Override
    public LeaderElection election() {
        return election;
    }

    @Override
    public boolean isLeader() {
        LockLeadership l = current;
        return l != null && l.isValid();
    }

    @Override
    public Optional<Leadership> leadership() {
        return Optional.ofNullable(current);
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        if (Thread.currentThread() != thread) {
            boolean interrupted = false;
            while (thread.isAlive()) {
                try {
                    thread.join(TimeUnit.SECONDS.toMillis(1));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "Candidacy{election='" + election.name() + "', candidate=" + election.candidateId() + ", leader="
                + isLeader() + ", closed=" + closed + "}";
    }
}
