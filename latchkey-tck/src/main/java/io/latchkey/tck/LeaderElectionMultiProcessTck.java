package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LeaderElection;
import io.latchkey.LeaderInfo;
import io.latchkey.Leadership;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Leaders that die or freeze, in other JVMs: a SIGKILLed leader is replaced within its lease plus one second (plus
 * the machine's slack); a SIGSTOPped leader is replaced with a higher term, and when it resumes (SIGCONT) its
 * {@code onRevoked} runs and its {@code runWhileValid} task is interrupted without starting another write (a write
 * whose validity check came before the stop may still complete: the fenced register refuses it).
 */
public abstract class LeaderElectionMultiProcessTck extends TckBase {

    private static final Duration START_UP = Duration.ofSeconds(40);

    /** The URI with which a child JVM reaches the same backend state as {@link #newClient}'s clients. */
    protected abstract String childUri();

    /**
     * 3 s: child JVMs (small heap, C1 only) on a loaded 2-core machine were seen to miss renewals for more than
     * the 1 s the in-process tests use, which ends the leadership for real and fails a test about something else.
     */
    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofSeconds(3);
    }

    private ChildJvm candidate(String label, String election, Path register) throws Exception {
        return ChildJvm.start(label, LeaderCandidateMain.class, childUri(), election,
                Long.toString(watchdogTimeout().toMillis()), label, register.toString());
    }

    private static long term(String line) {
        return Long.parseLong(line.substring(line.indexOf(' ') + 1).trim());
    }

    @Test
    void killedLeaderJvmIsReplacedWithinItsLeasePlusOneSecond() throws Exception {
        String election = newName();
        Path register = Files.createTempFile("latchkey-register-", ".txt");
        try (ChildJvm first = candidate("first", election, register)) {
            long firstTerm = term(first.awaitLine("LEADER", START_UP));
            first.awaitLine("WROTE", START_UP);
            LeaderElection observer = client().leaderElection(election);
            await().atMost(slack()).until(() -> observer.currentLeader().map(LeaderInfo::candidateId),
                    c -> c.equals(java.util.Optional.of("first")));
            try (ChildJvm second = candidate("second", election, register)) {
                second.awaitLine("WAITING", START_UP);
                Thread.sleep(watchdogTimeout().toMillis()); // campaigning by now, and not elected
                assertThat(second.printed("LEADER")).as("second elected while the first leads; %s",
                        second.describe()).isFalse();

                first.kill();
                long killedAt = System.nanoTime();
                long secondTerm = term(second.awaitLine("LEADER", watchdogTimeout().plus(slack()).plusSeconds(1)));
                long failover = millisSince(killedAt);
                System.out.printf("[leader-election] %s: SIGKILL of the leader JVM to the next leader %d ms "
                        + "(lease %d ms)%n", backendName(), failover, watchdogTimeout().toMillis());
                assertThat(failover).as("ms from SIGKILL to the next leader").isLessThan(
                        watchdogTimeout().plusSeconds(1).plus(slack()).toMillis());
                assertThat(secondTerm).isGreaterThan(firstTerm);
                second.awaitLine("WROTE " + secondTerm, slack());
                LeaderInfo seen = observer.currentLeader().orElseThrow();
                assertThat(seen.candidateId()).isEqualTo("second");
                assertThat(seen.term()).isEqualTo(secondTerm);
            }
        } finally {
            Files.deleteIfExists(register);
        }
    }

    @Test
    void stoppedLeaderIsReplacedAndOnResumeIsRevokedAndInterruptedBeforeItWrites() throws Exception {
        String election = newName();
        Path register = Files.createTempFile("latchkey-register-", ".txt");
        FileFencedRegister fenced = new FileFencedRegister(register);
        try (ChildJvm leader = candidate("paused", election, register)) {
            long oldTerm = term(leader.awaitLine("LEADER", START_UP));
            leader.awaitLine("WROTE", START_UP);
            LeaderElection successor = client().leaderElection(election, "successor");
            await().atMost(slack()).until(() -> successor.currentLeader().map(LeaderInfo::term),
                    t -> t.equals(java.util.Optional.of(oldTerm)));

            signal(leader, "STOP");
            long stoppedAt = System.nanoTime();
            try {
                Leadership next = successor
                        .tryAwaitLeadership(watchdogTimeout().plusSeconds(1).plus(slack())).orElseThrow(
                                () -> new AssertionError("no new leader while the old one is stopped"));
                long failover = millisSince(stoppedAt);
                System.out.printf("[leader-election] %s: SIGSTOP of the leader JVM to the next leader %d ms "
                        + "(lease %d ms)%n", backendName(), failover, watchdogTimeout().toMillis());
                assertThat(next.term()).isGreaterThan(oldTerm);
                assertThat(fenced.write(next.term())).isTrue();
                int linesBefore = leader.output().size();
                // Keep the old leader stopped well past its lease, then let it go on.
                Thread.sleep(watchdogTimeout().toMillis() / 2);
                signal(leader, "CONT");
                leader.awaitLine("REVOKED", watchdogTimeout().plus(slack()));
                String interrupted = leader.awaitLine("INTERRUPTED", slack());
                assertThat(interrupted).contains("InterruptedException");
                List<String> output = leader.output();
                List<String> after = output.subList(linesBefore, output.size());
                // The stop may have split one iteration (its validity check, or its write and the line saying so,
                // before the stop; the rest after): at most that one attempt completes after the resume, and the
                // register refuses it. No new attempt starts: isValid() is false on resume (the last confirmed
                // renewal is older than the lease) until the watchdog learns the leadership is gone.
                assertThat(after.stream().filter(l -> l.startsWith("ATTEMPT")).count())
                        .as("write attempts that started after the resume; %s", after).isLessThanOrEqualTo(1);
                assertThat(fenced.highest()).as("the old leader never overwrote its successor")
                        .isEqualTo(next.term());
                assertThat(fenced.write(oldTerm)).as("a write with the old term").isFalse();
                assertThat(next.isValid()).isTrue();
                next.close();
            } finally {
                signal(leader, "CONT");
            }
        } finally {
            Files.deleteIfExists(register);
        }
    }

    private static void signal(ChildJvm child, String signal) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(child.pid())).inheritIO().start();
        assertThat(kill.waitFor()).as("kill -%s %d", signal, child.pid()).isZero();
    }
}
