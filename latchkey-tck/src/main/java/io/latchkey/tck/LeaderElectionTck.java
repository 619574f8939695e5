package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.Candidacy;
import io.latchkey.LeaderElection;
import io.latchkey.LeaderInfo;
import io.latchkey.Leadership;
import io.latchkey.LeadershipListener;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Leader election ({@link LockClient#leaderElection}) and work that stops when its lease is lost
 * ({@link LockLease#runWhileValid}): one valid leader at a time, terms that only grow and fence, quick hand-over on
 * resignation, no residue from an interrupted candidate, and a lost leadership that is told once, interrupts its
 * work and whose late writes a fenced register refuses.
 */
public abstract class LeaderElectionTck extends TckBase {

    /**
     * 2 s unless a backend needs another: {@link Leadership#isValid()} also requires the last renewal to be
     * confirmed within one lease, and with 1 s a Redis Cluster on a 2-core machine at load 25 was seen to answer
     * renewals too late for that (correctly reported, but not what these tests are about).
     */
    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofSeconds(2);
    }

    /** Prints a measured time so that CI logs show the failover times per backend. */
    private void report(String what, long millis) {
        System.out.printf("[leader-election] %s: %s %d ms%n", backendName(), what, millis);
    }

    /**
     * A fresh or long-held leadership is valid, but on a loaded machine a renewal (or the acquire) that took longer
     * than the lease makes {@code isValid()} report {@code false} until the next renewal confirms it.
     */
    private void awaitValid(Leadership l) {
        await().atMost(watchdogTimeout().plus(slack())).until(l::isValid);
    }

    @Test
    void invalidNamesAndCandidateIdsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> client().leaderElection("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("election name");
        assertThatThrownBy(() -> client().leaderElection("x".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("200");
        assertThatThrownBy(() -> client().leaderElection(newName(), "a\nb"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("candidateId");
        assertThatThrownBy(() -> client().leaderElection(newName(), ""))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("candidateId");
        assertThat(client().leaderElection(newName()).candidateId()).isEqualTo(client().clientId());
    }

    @Test
    void leaderIsVisibleToObserversAndCloseHandsOverAtOnce() throws Exception {
        String name = newName();
        LeaderElection a = client().leaderElection(name, "node-a");
        LeaderElection b = openClient().leaderElection(name, "node-b");
        LeaderElection observer = openClient().leaderElection(name);
        assertThat(observer.currentLeader()).isEmpty();

        Instant before = Instant.now().minusSeconds(1);
        Leadership first = a.awaitLeadership();
        awaitValid(first);
        assertThat(first.candidateId()).isEqualTo("node-a");
        assertThat(first.electionName()).isEqualTo(name);
        LeaderInfo seen = observer.currentLeader().orElseThrow();
        assertThat(seen.candidateId()).isEqualTo("node-a");
        assertThat(seen.term()).isEqualTo(first.term());
        assertThat(seen.since()).isBetween(before, Instant.now().plusSeconds(1));
        assertThat(b.tryAwaitLeadership(Duration.ZERO)).as("a second leader").isEmpty();

        Forked<Leadership> waiting = fork("candidate-b", b::awaitLeadership);
        awaitBlocked(waiting);
        long closedAt = System.nanoTime();
        first.close();
        Leadership second = waiting.get(slack());
        long handOver = millisSince(closedAt);
        report("close() to the next candidate's election, across clients", handOver);
        assertThat(handOver).as("ms from close() to the next leader").isLessThan(slack().toMillis());
        assertThat(first.isValid()).isFalse();
        assertThat(second.term()).isGreaterThan(first.term());
        await().atMost(slack()).until(() -> observer.currentLeader().map(LeaderInfo::candidateId),
                c -> c.equals(Optional.of("node-b")));
        assertThat(observer.currentLeader().orElseThrow().term()).isEqualTo(second.term());

        second.close();
        second.close(); // idempotent
        await().atMost(slack()).until(() -> observer.currentLeader().isEmpty());
        assertThat(client().lock(a.lockName()).isLocked()).isFalse();
    }

    @Test
    void fiftyCandidatesOverThreeClientsHaveOneLeaderAtATimeWithGrowingTerms() throws Exception {
        String name = newName();
        List<LockClient> clients = List.of(client(), openClient(), openClient());
        int target = 30;
        AtomicInteger leaders = new AtomicInteger();
        AtomicInteger elections = new AtomicInteger();
        AtomicLong lastTerm = new AtomicLong(Long.MIN_VALUE);
        List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.Set<String> leadingClients = java.util.concurrent.ConcurrentHashMap.newKeySet();
        List<Forked<Void>> candidates = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            LockClient c = clients.get(i % 3);
            LeaderElection election = c.leaderElection(name, "candidate-" + i);
            candidates.add(fork("candidate-" + i, () -> {
                while (elections.get() < target) {
                    try (Leadership l = election.awaitLeadership()) {
                        int now = leaders.incrementAndGet();
                        try {
                            if (now != 1) {
                                violations.add(now + " leaders at once, including " + l);
                            }
                            long previous = lastTerm.getAndSet(l.term());
                            if (l.term() <= previous) {
                                violations.add("term " + l.term() + " after term " + previous);
                            }
                            leadingClients.add(c.clientId());
                            elections.incrementAndGet();
                            Thread.sleep(2);
                        } finally {
                            // Before close() hands over, also when the end-of-test interrupt lands in the sleep:
                            // a skipped decrement made the next leader look like a second one at once.
                            leaders.decrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> elections.get() >= target);
        for (Forked<Void> f : candidates) {
            f.thread().interrupt();
        }
        for (Forked<Void> f : candidates) {
            try {
                f.get(slack());
            } catch (java.util.concurrent.ExecutionException e) {
                assertThat(e.getCause()).as("how a candidate ended").isInstanceOf(InterruptedException.class);
            }
        }
        assertThat(violations).isEmpty();
        assertThat(elections.get()).isGreaterThanOrEqualTo(target);
        assertThat(client().leaderElection(name).tryAwaitLeadership(slack())).as("free once everyone stopped")
                .hasValueSatisfying(l -> {
                    assertThat(l.term()).isGreaterThan(lastTerm.get());
                    l.close();
                });
    }

    @Test
    void interruptedCandidateLeavesNothingBehind() throws Exception {
        String name = newName();
        Leadership leader = client().leaderElection(name).awaitLeadership();
        LeaderElection other = openClient().leaderElection(name);
        Forked<Leadership> waiting = fork("interrupted", other::awaitLeadership);
        awaitBlocked(waiting);
        waiting.thread().interrupt();
        assertThat(waiting.failure(slack())).isInstanceOf(InterruptedException.class);

        leader.close();
        LeaderElection third = openClient().leaderElection(name);
        long start = System.nanoTime();
        Optional<Leadership> next = third.tryAwaitLeadership(slack());
        assertThat(next).as("elected right after the leader resigned: the interrupted candidate left no entry")
                .isPresent();
        assertThat(millisSince(start)).isLessThan(slack().toMillis());
        next.get().close();
        assertThat(other.currentLeader()).isEmpty();
        assertThat(client().lock(other.lockName()).isLocked()).isFalse();
    }

    @Test
    void asyncCampaignWinsWithoutAThreadAndItsCancellationLeavesNothingBehind() throws Exception {
        String name = newName();
        Leadership leader = client().leaderElection(name, "leader").awaitLeadership();
        LeaderElection cancelled = openClient().leaderElection(name, "cancelled");
        CompletableFuture<Leadership> campaign = cancelled.awaitLeadershipAsync();
        Thread.sleep(200);
        assertThat(campaign).as("the campaign waits while another candidate leads").isNotDone();
        assertThat(campaign.cancel(false)).isTrue();

        LeaderElection next = openClient().leaderElection(name, "next");
        CompletableFuture<Leadership> waiting = next.awaitLeadershipAsync();
        leader.close();
        Leadership won = waiting.get(slack().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(won.candidateId()).as("the cancelled candidate left no entry").isEqualTo("next");
        assertThat(won.term()).isGreaterThan(leader.term());
        awaitValid(won);
        await().atMost(slack()).until(() -> next.currentLeader().map(LeaderInfo::candidateId),
                candidate -> candidate.equals(Optional.of("next")));
        won.close();
        assertThat(client().lock(next.lockName()).isLocked()).isFalse();
    }

    @Test
    void tryAwaitLeadershipGivesUpAfterItsWaitTime() throws Exception {
        String name = newName();
        try (Leadership leader = client().leaderElection(name).awaitLeadership()) {
            long start = System.nanoTime();
            assertThat(openClient().leaderElection(name).tryAwaitLeadership(Duration.ofMillis(300))).isEmpty();
            assertThat(millisSince(start)).isBetween(250L, 300 + slack().toMillis());
            assertThat(leader.term()).isPositive();
        }
    }

    @Test
    void lostLeadershipIsRevokedOnceInterruptsItsWorkAndIsFenced() throws Exception {
        String name = newName();
        FencedRegister register = new FencedRegister();
        LeaderElection election = client().leaderElection(name, "old");
        Leadership old = election.awaitLeadership();
        AtomicInteger revoked = new AtomicInteger();
        old.onRevoked(revoked::incrementAndGet);
        assertThat(register.write(old.term())).isTrue();
        CountDownLatch working = new CountDownLatch(1);
        Forked<Object> work = fork("leader-work", () -> old.runWhileValid(() -> {
            working.countDown();
            while (true) {
                Thread.sleep(20);
                if (old.isValid()) {
                    register.write(old.term());
                }
            }
        }));
        assertThat(working.await(slack().toMillis(), TimeUnit.MILLISECONDS)).isTrue();

        long forcedAt = System.nanoTime();
        assertThat(openClient().lock(election.lockName()).forceUnlock()).isTrue();
        Leadership next = openClient().leaderElection(name, "new").tryAwaitLeadership(slack()).orElseThrow();
        assertThat(next.term()).isGreaterThan(old.term());
        assertThat(register.write(next.term())).isTrue();

        Throwable stopped = work.failure(watchdogTimeout().plus(slack()));
        report("force-unlock to the old leader's task interrupted", millisSince(forcedAt));
        assertThat(stopped).isInstanceOf(LockLostException.class).hasMessageContaining(name)
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(old.isValid()).isFalse();
        await().atMost(slack()).until(() -> revoked.get() == 1);
        assertThat(register.write(old.term())).as("a write with the old term").isFalse();
        assertThatThrownBy(() -> old.runWhileValid(() -> "too late")).isInstanceOf(LockLostException.class);
        Thread.sleep(watchdogTimeout().toMillis() / 2);
        assertThat(revoked.get()).as("onRevoked runs once").isEqualTo(1);
        old.close(); // resigning a lost leadership is not an error
        awaitValid(next);
        next.close();
    }

    @Test
    void candidacyCampaignsAgainAfterALossAndResignsOnClose() throws Exception {
        String name = newName();
        BlockingQueue<String> events = new LinkedBlockingQueue<>();
        LeadershipListener listener = new LeadershipListener() {
            @Override
            public void elected(Leadership l) {
                events.add("elected " + l.candidateId() + " " + l.term());
            }

            @Override
            public void revoked(Leadership l) {
                events.add("revoked " + l.candidateId() + " " + l.term() + " valid=" + l.isValid());
            }
        };
        LeaderElection election = client().leaderElection(name, "latch");
        Candidacy candidacy = election.start(listener);
        String elected = events.poll(slack().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(elected).startsWith("elected latch ");
        long firstTerm = Long.parseLong(elected.substring("elected latch ".length()));
        await().atMost(slack()).until(candidacy::isLeader);
        assertThat(candidacy.leadership()).hasValueSatisfying(l -> assertThat(l.term()).isEqualTo(firstTerm));

        assertThat(openClient().lock(election.lockName()).forceUnlock()).isTrue();
        assertThat(events.poll(watchdogTimeout().plus(slack()).toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo("revoked latch " + firstTerm + " valid=false");
        String again = events.poll(slack().toMillis(), TimeUnit.MILLISECONDS);
        assertThat(again).as("campaigned again").startsWith("elected latch ");
        long secondTerm = Long.parseLong(again.substring("elected latch ".length()));
        assertThat(secondTerm).isGreaterThan(firstTerm);

        candidacy.close();
        assertThat(events.poll(slack().toMillis(), TimeUnit.MILLISECONDS))
                .isEqualTo("revoked latch " + secondTerm + " valid=false");
        assertThat(candidacy.isLeader()).isFalse();
        assertThat(openClient().leaderElection(name).tryAwaitLeadership(slack())).as("resigned on close")
                .hasValueSatisfying(Leadership::close);
        assertThat(events).isEmpty();
    }

    @Test
    void closingTheClientResignsItsCandidacies() throws Exception {
        String name = newName();
        LockClient owner = openClient();
        CountDownLatch elected = new CountDownLatch(1);
        owner.leaderElection(name).start(l -> elected.countDown());
        assertThat(elected.await(slack().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        owner.close();
        long start = System.nanoTime();
        assertThat(openClient().leaderElection(name).tryAwaitLeadership(slack())).isPresent()
                .hasValueSatisfying(Leadership::close);
        assertThat(millisSince(start)).as("resigned, not left to expire").isLessThan(slack().toMillis());
    }

    @Test
    void runWhileValidReturnsTheResultAndRefusesAnInvalidLease() throws Exception {
        LockLease lease = client().lock(newName()).acquire();
        assertThat(lease.runWhileValid(() -> 42)).isEqualTo(42);
        assertThatThrownBy(() -> lease.runWhileValid(() -> {
            throw new IllegalStateException("boom");
        })).isInstanceOf(IllegalStateException.class).hasMessage("boom");
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        lease.release();
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(() -> lease.runWhileValid(ran::incrementAndGet)).isInstanceOf(LockLostException.class)
                .hasMessageContaining("not run");
        assertThat(ran.get()).isZero();
    }

    @Test
    void runWhileValidInterruptsTheTaskWhenTheLeaseIsLost() throws Exception {
        String name = newName();
        LockLease lease = client().lock(name).acquire();
        AtomicReference<Boolean> interruptedAfter = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        Forked<Object> task = fork("leased-work", () -> {
            try {
                return lease.runWhileValid(() -> {
                    started.countDown();
                    Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                    return "slept";
                });
            } finally {
                interruptedAfter.set(Thread.currentThread().isInterrupted());
            }
        });
        assertThat(started.await(slack().toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        long start = System.nanoTime();
        assertThat(openClient().lock(name).forceUnlock()).isTrue();
        Throwable failure = task.failure(watchdogTimeout().plus(slack()));
        report("force-unlock to a lease's task interrupted", millisSince(start));
        assertThat(failure).isInstanceOf(LockLostException.class).hasCauseInstanceOf(InterruptedException.class);
        assertThat(interruptedAfter.get()).as("the interrupt was consumed").isFalse();
        assertThat(lease.isValid()).isFalse();
    }
}
