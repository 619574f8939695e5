package io.latchkey.spring;

import io.latchkey.Candidacy;
import io.latchkey.LeaderElection;
import io.latchkey.Leadership;
import io.latchkey.LeadershipListener;
import io.latchkey.LockClient;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.springframework.context.Lifecycle;
import org.springframework.context.SmartLifecycle;

/**
 * Runs a component only while this instance leads an election: a {@link SmartLifecycle} bean that campaigns when
 * the context starts, starts {@code component} when elected, stops it when the leadership is revoked or resigned,
 * campaigns again after a loss, and resigns when the context stops — the Latchkey counterpart of Spring
 * Integration's {@code LockRegistryLeaderInitiator}, with a fenced term.
 *
 * <pre>{@code
 * @Bean
 * LeaderOnlyLifecycle billingLeader(LockClient client, BillingScheduler scheduler) {
 *     return new LeaderOnlyLifecycle(client.leaderElection("billing-scheduler"), scheduler);
 * }
 * // scheduler implements org.springframework.context.Lifecycle; it reads currentLeadership().map(Leadership::term)
 * // to fence its writes
 * }</pre>
 *
 * <p>Declare the component itself without its own lifecycle (a plain bean that implements {@link Lifecycle}, not a
 * {@link SmartLifecycle} with auto-startup), so that only this bean starts it. {@code component.start()} and
 * {@code component.stop()} run on the election's thread ({@code latchkey-<backend>-election-…}), one at a time; a
 * {@code start()} that throws makes this instance resign and campaign again. The phase is late
 * ({@code Integer.MAX_VALUE - 1000}): the component starts after the beans it depends on and stops before them.
 *
 * <p>Between the moment the backend drops a leadership and the moment this instance notices (at most one renewal
 * interval, or when a paused process resumes) the component still runs: fence its writes with the term.
 */
public class LeaderOnlyLifecycle implements SmartLifecycle {

    private final LeaderElection election;
    private final Lifecycle component;
    private final ReentrantLock lock = new ReentrantLock();
    private Candidacy candidacy;
    private volatile Leadership leadership;

    /** Campaigns in {@code election} for {@code component}. */
    public LeaderOnlyLifecycle(LeaderElection election, Lifecycle component) {
        this.election = Objects.requireNonNull(election, "election");
        this.component = Objects.requireNonNull(component, "component");
    }

    /** Campaigns in the election {@code electionName} of {@code client}, as the client's id. */
    public LeaderOnlyLifecycle(LockClient client, String electionName, Lifecycle component) {
        this(Objects.requireNonNull(client, "client").leaderElection(electionName), component);
    }

    /** The leadership while this instance leads (and the component runs): its term fences the component's writes. */
    public Optional<Leadership> currentLeadership() {
        Leadership l = leadership;
        return l != null && l.isValid() ? Optional.of(l) : Optional.empty();
    }

    /** Whether this instance leads right now. */
    public boolean isLeader() {
        return currentLeadership().isPresent();
    }

    public LeaderElection election() {
        return election;
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (candidacy == null) {
                candidacy = election.start(new LeadershipListener() {
                    @Override
                    public void elected(Leadership l) {
                        leadership = l;
                        component.start();
                    }

                    @Override
                    public void revoked(Leadership l) {
                        leadership = null;
                        if (component.isRunning()) {
                            component.stop();
                        }
                    }
                });
            }
        } finally {
            lock.unlock();
        }
    }

    /** Resigns (the next candidate takes over at once) after stopping the component; waits for both. */
    @Override
    public void stop() {
        Candidacy c;
        lock.lock();
        try {
            c = candidacy;
            candidacy = null;
        } finally {
            lock.unlock();
        }
        if (c != null) {
            c.close();
        }
    }

    /** Whether this instance campaigns (leading or not). */
    @Override
    public boolean isRunning() {
        lock.lock();
        try {
            return candidacy != null;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE - 1000;
    }

    @Override
    public String toString() {
        return "LeaderOnlyLifecycle{election='" + election.name() + "', candidate=" + election.candidateId()
                + ", leader=" + isLeader() + "}";
    }
}
