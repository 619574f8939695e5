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
 * the context starts, tells the component when it is elected and when the leadership is revoked or resigned,
 * campaigns again after a loss, and resigns when the context stops — the Latchkey counterpart of Spring
 * Integration's {@code LockRegistryLeaderInitiator}, with a fenced term.
 *
 * <pre>{@code
 * @Bean
 * LeaderOnlyLifecycle billingLeader(LockClient client, BillingScheduler scheduler) {
 *     return new LeaderOnlyLifecycle(client.leaderElection("billing-scheduler"), new LeadershipListener() {
 *         public void elected(Leadership l) { scheduler.start(l.term()); }   // fence its writes with the term
 *         public void revoked(Leadership l) { scheduler.stop(); }
 *     });
 * }
 * }</pre>
 *
 * <p>The component must not be a Spring {@link Lifecycle} bean itself: Spring starts the {@code Lifecycle} beans a
 * starting bean depends on, whether or not this instance leads. The callbacks run on the election's thread
 * ({@code latchkey-<backend>-election-…}), one at a time; an {@code elected} that throws makes this instance resign
 * and campaign again. The phase is late ({@code Integer.MAX_VALUE - 1000}): the component starts after the beans
 * it depends on and stops before them.
 *
 * <p>Between the moment the backend drops a leadership and the moment this instance notices (at most one renewal
 * interval, or when a paused process resumes) the component still runs: fence its writes with the term.
 */
public class LeaderOnlyLifecycle implements SmartLifecycle {

    private final LeaderElection election;
    private final LeadershipListener component;
    private final ReentrantLock lock = new ReentrantLock();
    private Candidacy candidacy;
    private volatile Leadership leadership;

    /**
     * Creates a lifecycle that, once started, campaigns in {@code election}, telling {@code component} when it leads
     * and when it no longer does.
     *
     * @param election the election to campaign in, under its candidate id
     * @param component told of each election and revocation, on the election's thread
     * @throws NullPointerException if an argument is null
     */
    public LeaderOnlyLifecycle(LeaderElection election, LeadershipListener component) {
        this.election = Objects.requireNonNull(election, "election");
        this.component = Objects.requireNonNull(component, "component");
    }

    /**
     * Creates a lifecycle that, once started, campaigns in the election {@code electionName} of {@code client} (as
     * the client's id), running {@code onElected} when elected and {@code onRevoked} when the leadership ends.
     *
     * @param client the client whose {@link LockClient#leaderElection(String) election} to campaign in
     * @param electionName the election's name
     * @param onElected run on the election's thread when this instance is elected
     * @param onRevoked run on the election's thread when the leadership is lost or resigned
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if the election name is invalid
     */
    public LeaderOnlyLifecycle(LockClient client, String electionName, Runnable onElected, Runnable onRevoked) {
        this(Objects.requireNonNull(client, "client").leaderElection(electionName), new LeadershipListener() {
            @Override
            public void elected(Leadership leadership) {
                onElected.run();
            }

            @Override
            public void revoked(Leadership leadership) {
                onRevoked.run();
            }
        });
        Objects.requireNonNull(onElected, "onElected");
        Objects.requireNonNull(onRevoked, "onRevoked");
    }

    /**
     * {@return the leadership while this instance leads (and the component runs), else empty} Its term fences the
     * component's writes.
     */
    public Optional<Leadership> currentLeadership() {
        Leadership l = leadership;
        return l != null && l.isValid() ? Optional.of(l) : Optional.empty();
    }

    /** {@return whether this instance holds a valid leadership right now} */
    public boolean isLeader() {
        return currentLeadership().isPresent();
    }

    /** {@return the election this lifecycle campaigns in} */
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
                        component.elected(l);
                    }

                    @Override
                    public void revoked(Leadership l) {
                        leadership = null;
                        component.revoked(l);
                    }
                });
            }
        } finally {
            lock.unlock();
        }
    }

    /** Resigns (the next candidate takes over at once) and tells the component; waits for both. */
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
