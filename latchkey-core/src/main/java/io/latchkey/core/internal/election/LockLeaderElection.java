package io.latchkey.core.internal.election;

import io.latchkey.Candidacy;
import io.latchkey.DistributedLock;
import io.latchkey.LeaderElection;
import io.latchkey.LeaderInfo;
import io.latchkey.Leadership;
import io.latchkey.LeadershipListener;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.core.AbstractLockClient;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link LeaderElection} of every backend: a watchdog lease of the election lock is the leadership, and a
 * leader record (see {@link ElectionNames}) tells observers who leads. A cheap view; all state is in the leases.
 */
public final class LockLeaderElection implements LeaderElection {
    private static final Logger log = LoggerFactory.getLogger(LockLeaderElection.class);

    private final LockClient client;
    private final Elections elections;
    private final String name;
    private final String candidateId;
    private final DistributedLock lock;

    /**
     * @throws IllegalArgumentException if the name or candidate id is invalid
     */
    public LockLeaderElection(LockClient client, Elections elections, String name, String candidateId) {
        this.client = Objects.requireNonNull(client, "client");
        this.elections = Objects.requireNonNull(elections, "elections");
        this.name = ElectionNames.checkElectionName(name);
        this.candidateId = ElectionNames.checkCandidateId(candidateId);
        this.lock = client.lock(ElectionNames.electionLock(name));
        // A view only (nothing is sent): a backend that reserves some names refuses the leader record's now, not
        // when a leader first publishes it.
        client.lock(ElectionNames.record(name, new LeaderInfo(this.candidateId, 1, Instant.EPOCH)));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public String candidateId() {
        return candidateId;
    }

    @Override
    public String lockName() {
        return lock.name();
    }

    @Override
    public Leadership awaitLeadership() throws InterruptedException {
        return elected(lock.acquire());
    }

    @Override
    public Optional<Leadership> tryAwaitLeadership(Duration waitTime) throws InterruptedException {
        Objects.requireNonNull(waitTime, "waitTime");
        // A negative wait is one attempt, as for the lock itself.
        Optional<LockLease> lease = lock.tryAcquire(waitTime);
        return lease.isPresent() ? Optional.of(elected(lease.get())) : Optional.empty();
    }

    @Override
    public CompletableFuture<Leadership> awaitLeadershipAsync() {
        CompletableFuture<LockLease> acquiring = lock.acquireAsync();
        CompletableFuture<Leadership> user = new CompletableFuture<>();
        acquiring.whenComplete((lease, error) -> {
            if (error != null) {
                user.completeExceptionally(error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error);
                return;
            }
            LockLeadership leadership = newLeadership(lease);
            CompletableFuture<Optional<LockLease>> record;
            try {
                record = client.lock(recordName(leadership)).tryAcquireAsync(Duration.ZERO, null);
            } catch (RuntimeException e) {
                record = CompletableFuture.failedFuture(e);
            }
            record.whenComplete((recordLease, recordError) -> {
                if (recordError != null) {
                    // The leadership stands: the record only serves observers.
                    log.warn("could not publish the leader record of election '{}' (term {}): {}", name,
                            lease.fencingToken(), recordError.toString());
                } else if (recordLease.isPresent()) {
                    leadership.record(recordLease.get());
                } else {
                    log.warn("leader record '{}' is held by someone else; currentLeader() may not show this leader",
                            recordName(leadership));
                }
                if (!user.complete(leadership)) {
                    // the caller cancelled while the leadership was on its way: resign it
                    leadership.resignAsync();
                }
            });
        });
        user.whenComplete((r, e) -> {
            if (user.isCancelled()) {
                acquiring.cancel(false); // the engine withdraws the waiter, or releases a grant that raced
            }
        });
        return user;
    }

    private LockLeadership newLeadership(LockLease lease) {
        return new LockLeadership(name, candidateId, lease, Instant.now(),
                client instanceof AbstractLockClient engineClient ? engineClient.nanoTime()
                        : System.nanoTime());
    }

    private String recordName(LockLeadership leadership) {
        return ElectionNames.record(name, new LeaderInfo(candidateId, leadership.term(), leadership.since()));
    }

    /** Wraps a fresh lease of the election lock and publishes the leader record. */
    private LockLeadership elected(LockLease lease) throws InterruptedException {
        LockLeadership leadership = newLeadership(lease);
        String recordName = recordName(leadership);
        try {
            Optional<LockLease> record = client.lock(recordName).tryAcquire(Duration.ZERO);
            if (record.isPresent()) {
                leadership.record(record.get());
            } else {
                log.warn("leader record '{}' is held by someone else; currentLeader() may not show this leader",
                        recordName);
            }
        } catch (InterruptedException e) {
            resignQuietly(leadership);
            throw e;
        } catch (RuntimeException e) {
            // The leadership stands: the record only serves observers.
            log.warn("could not publish the leader record of election '{}' (term {}): {}", name,
                    lease.fencingToken(), e.toString());
        }
        return leadership;
    }

    private static void resignQuietly(Leadership leadership) {
        try {
            leadership.close();
        } catch (RuntimeException e) {
            log.debug("resigning after an interrupt failed; the leadership expires with its lease", e);
        }
    }

    @Override
    public Optional<LeaderInfo> currentLeader() {
        if (!(client instanceof LockInspector inspector)) {
            throw new UnsupportedOperationException(String.format(
                    "%s cannot list locks, so it cannot tell who leads election '%s'", client, name));
        }
        LeaderInfo best = null;
        for (LockInfo row : inspector.list(ElectionNames.recordPrefix(name) + "*")) {
            Optional<LeaderInfo> info = ElectionNames.parseRecord(name, row.name());
            if (info.isPresent() && (best == null || info.get().term() > best.term())) {
                best = info.get();
            }
        }
        if (best == null) {
            return Optional.empty();
        }
        // A record outlives its leadership by up to one renewal interval when the election lock was taken away
        // (force-unlocked, expired during a pause): only report it while the election lock is held.
        return lock.isLocked() ? Optional.of(best) : Optional.empty();
    }

    @Override
    public Candidacy start(LeadershipListener listener) {
        Objects.requireNonNull(listener, "listener");
        return elections.start(this, listener);
    }

    @Override
    public String toString() {
        return "LeaderElection{name='" + name + "', candidate=" + candidateId + "}";
    }
}
