package io.latchkey.cli.faults;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.cli.faults.HistoryEvent.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The checker on hand-made histories: each rule passes a correct history and catches its violation. */
class HistoryCheckerTest {

    private static final long S = 1_000_000_000L;
    private static final Duration LEASE = Duration.ofSeconds(2);

    private final List<HistoryEvent> events = new ArrayList<>();

    private void e(double seconds, String actor, Type type, long token, long value) {
        events.add(new HistoryEvent((long) (seconds * S), actor, type, token, value, ""));
    }

    /** A hold with a fenced read and an accepted write of {@code value}. */
    private void hold(double at, String actor, long token, long value) {
        e(at, actor, Type.ACQUIRED, token, -1);
        e(at + 0.01, actor, Type.READ, token, value - 1);
        e(at + 0.05, actor, Type.WRITE_OK, token, value);
        e(at + 0.06, actor, Type.RELEASED, token, -1);
    }

    private List<FaultRow> check(List<FaultWindow> windows, long finalValue) {
        events.sort((a, b) -> Long.compare(a.nanos(), b.nanos()));
        return new HistoryChecker("test", LEASE, Duration.ofSeconds(10)).check(events, windows, 20 * S, finalValue);
    }

    private static List<FaultWindow> baseline() {
        return List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 20 * S));
    }

    private static FaultRow whole(List<FaultRow> rows) {
        return rows.get(rows.size() - 1);
    }

    private void steadyWorkers() {
        for (String w : List.of("w1", "w2")) {
            for (int t = 0; t < 20; t += 4) {
                e(t + 0.5 + (w.equals("w1") ? 0 : 2), w, Type.TIMEOUT, -1, -1);
            }
        }
    }

    @Test
    void aCorrectHistoryPasses() {
        steadyWorkers();
        hold(1, "w1", 1, 1);
        hold(2, "w2", 2, 2);
        hold(3, "w1", 3, 3);
        List<FaultRow> rows = check(baseline(), 3);
        assertThat(whole(rows).violations()).isEmpty();
        assertThat(whole(rows).accepted()).isEqualTo(3);
    }

    @Test
    void twoAcceptedWritesOfOneValueAreUnsafe() {
        steadyWorkers();
        hold(1, "w1", 1, 1);
        hold(2, "w2", 2, 2);
        hold(3, "w1", 3, 2);
        FaultRow w = whole(check(baseline(), 2));
        assertThat(w.unsafe()).isEqualTo(1);
        assertThat(w.lostUpdates()).isEqualTo(1);
        assertThat(w.violations()).anySatisfy(v -> assertThat(v).contains("unsafe writes 1"));
    }

    @Test
    void aLowerOrRepeatedTokenAcceptedFromAnotherHolderBreaksTheOrder() {
        steadyWorkers();
        hold(1, "w1", 5, 1);
        hold(2, "w2", 5, 2);
        hold(3, "w1", 3, 3);
        FaultRow w = whole(check(baseline(), 3));
        assertThat(w.tokenOrder()).isEqualTo(2);
        assertThat(w.violations()).anySatisfy(v -> assertThat(v).contains("w2 wrote 2 with token 5 after w1"));
    }

    @Test
    void aHolderThatLostTheLockMustBeTold() {
        steadyWorkers();
        e(1, "w1", Type.ACQUIRED, 1, -1);
        hold(4, "w2", 2, 1);
        e(6, "w1", Type.RELEASED, 1, -1);
        FaultRow w = whole(check(baseline(), 1));
        assertThat(w.overlaps()).isEqualTo(1);
        assertThat(w.violations()).anySatisfy(v -> assertThat(v).contains("not told 1 of 1"));

        events.removeIf(ev -> ev.actor().equals("w1") && ev.type() == Type.RELEASED);
        e(6, "w1", Type.LOST, 1, -1);
        e(6.1, "w1", Type.RELEASE_LOST, 1, -1);
        FaultRow told = whole(check(baseline(), 1));
        assertThat(told.violations()).isEmpty();
        assertThat(told.told()).isEqualTo(1);
    }

    /**
     * A clock jump as a soak saw it behind PgBouncer: w2 was granted token 5, the jump expired its row, w1 took the
     * lock over with token 6 and stamped its grant first; w2's own stamp came later. w2 lost (lower token) and was
     * told; w1 held the lock throughout and has nothing to be told.
     */
    @Test
    void theHolderOfTheLowerTokenIsTheOneThatLostWhateverTheStampOrder() {
        steadyWorkers();
        e(1.0, "w1", Type.ACQUIRED, 6, -1);
        e(1.2, "w2", Type.ACQUIRED, 5, -1);
        e(1.21, "w2", Type.LOST, 5, -1);
        e(1.3, "w1", Type.READ, 6, 0);
        e(1.5, "w1", Type.WRITE_OK, 6, 1);
        e(1.51, "w1", Type.RELEASED, 6, -1);
        e(1.52, "w2", Type.WRITE_REFUSED, 5, 1);
        e(1.53, "w2", Type.RELEASE_LOST, 5, -1);
        FaultRow w = whole(check(baseline(), 1));
        assertThat(w.overlaps()).isEqualTo(1);
        assertThat(w.lostHolds()).isEqualTo(1);
        assertThat(w.told()).isEqualTo(1);
        assertThat(w.violations()).isEmpty();

        events.removeIf(ev -> ev.actor().equals("w2") && (ev.type() == Type.LOST || ev.type() == Type.RELEASE_LOST));
        e(1.53, "w2", Type.RELEASED, 5, -1);
        assertThat(whole(check(baseline(), 1)).violations())
                .anySatisfy(v -> assertThat(v).contains("not told 1 of 1"));
    }

    @Test
    void theNextGrantAfterAKillMustComeWithinTheLeasePlusOneSecond() {
        steadyWorkers();
        e(1, "w1", Type.ACQUIRED, 1, -1);
        e(2, "w1", Type.EXITED, -1, -1);
        e(6.5, "w2", Type.ACQUIRED, 2, -1);
        List<FaultWindow> windows = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 2 * S),
                new FaultWindow(FaultKind.KILL, "w1", 1, 2 * S, 2 * S, 20 * S));
        FaultRow kill = check(windows, 0).get(1);
        assertThat(kill.nextGrantMillis()).isEqualTo(4_500);
        assertThat(kill.violations()).anySatisfy(v -> assertThat(v).contains("> lease + 1 s"));
    }

    @Test
    void aFaultThatLandedAfterItsTargetReleasedHitNothing() {
        steadyWorkers();
        hold(1, "w1", 1, 1);
        e(1.5, "w2", Type.ACQUIRED, 2, -1);
        List<FaultWindow> windows = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, S + S / 5),
                new FaultWindow(FaultKind.PAUSE, "w1", 1, S + S / 5, 6 * S, 20 * S));
        FaultRow pause = check(windows, 1).get(1);
        assertThat(pause.nextGrantMillis()).isEqualTo(-1);
        assertThat(pause.target()).isEqualTo("w1 (held nothing)");
    }

    @Test
    void machineTimeLostToAStarvedHostIsAllowedOnTheTimingRulesOnly() {
        steadyWorkers();
        e(1, "w1", Type.ACQUIRED, 1, -1);
        e(2, "w1", Type.EXITED, -1, -1);
        e(6.5, "w2", Type.ACQUIRED, 2, -1);
        e(6.6, "w2", Type.WRITE_OK, 2, 1);
        e(6.7, "w2", Type.WRITE_OK, 2, 1);
        List<FaultWindow> windows = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 2 * S),
                new FaultWindow(FaultKind.KILL, "w1", 1, 2 * S, 2 * S, 20 * S));
        events.sort((a, b) -> Long.compare(a.nanos(), b.nanos()));
        FaultRow kill = new HistoryChecker("test", LEASE, Duration.ofSeconds(10), (from, to) -> 2 * S)
                .check(events, windows, 20 * S, 1).get(1);
        assertThat(kill.violations()).noneMatch(v -> v.contains("next grant"))
                .anySatisfy(v -> assertThat(v).contains("unsafe writes 1"));
    }

    @Test
    void writesMustBeAcceptedAgainAfterAServerFault() {
        steadyWorkers();
        hold(1, "w1", 1, 1);
        e(8, "w2", Type.ACQUIRED, 1, -1);
        e(8.1, "w2", Type.READ_REFUSED, 1, -1);
        e(8.2, "w2", Type.RELEASED, 1, -1);
        List<FaultWindow> windows = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 5 * S),
                new FaultWindow(FaultKind.SERVER_RESTART, "", -1, 5 * S, 6 * S, 20 * S));
        FaultRow restart = check(windows, 1).get(1);
        assertThat(restart.recoveryMillis()).isEqualTo(Long.MAX_VALUE);
        assertThat(restart.refused()).isEqualTo(1);
        assertThat(restart.violations()).anySatisfy(v -> assertThat(v).contains("no write accepted again"));

        hold(9, "w1", 7, 2);
        assertThat(check(windows, 2).get(1).recoveryMillis()).isEqualTo(4_050);
    }

    @Test
    void writesStoppedLongerThanTheProgressBoundOutsideFaultsAreAViolationOfTheWindowWhereTheyStopped() {
        long runEnd = 150 * S;
        for (int t = 0; t < 150; t += 2) {
            e(t + 0.5, "w1", Type.TIMEOUT, -1, -1);
            e(t + 1.5, "w2", Type.TIMEOUT, -1, -1);
        }
        long token = 1;
        long value = 1;
        for (int t = 1; t <= 9; t++) {
            hold(t + 0.2, t % 2 == 0 ? "w1" : "w2", token++, value++);
        }
        // a holder cut off from 10 s to 15 s; a write right after the heal, then the lock stays taken until a
        // failover at 110 s happens to free it
        hold(15.3, "w2", token++, value++);
        for (int t = 112; t < 150; t += 2) {
            hold(t, "w1", token++, value++);
        }
        List<FaultWindow> windows = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 10 * S),
                new FaultWindow(FaultKind.PARTITION, "w2", -1, 10 * S, 15 * S, 110 * S),
                new FaultWindow(FaultKind.FAILOVER, "", -1, 110 * S, 111 * S, runEnd));
        events.sort((a, b) -> Long.compare(a.nanos(), b.nanos()));
        HistoryChecker checker = new HistoryChecker("test", LEASE, Duration.ofSeconds(10));
        assertThat(checker.progressBound()).isEqualTo(Duration.ofSeconds(20));
        List<FaultRow> rows = checker.check(events, windows, runEnd, value - 1);
        assertThat(rows.get(1).violations()).singleElement().satisfies(v -> assertThat(v)
                .contains("no write accepted for 96.7 s (1.0 s of it under faults)")
                .contains("longer than 20 s outside faults"));
        assertThat(rows.get(2).violations()).isEmpty();
        assertThat(rows.get(2).recoveryMillis()).isEqualTo(2_050);
        assertThat(whole(rows).violations()).singleElement().satisfies(v -> assertThat(v).startsWith(
                "partition holder: no write accepted for 96.7 s"));

        // the same stop inside a fault that lasts (a split brain of 89 s): only the 13.1 s outside it count
        List<FaultWindow> longFault = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 10 * S),
                new FaultWindow(FaultKind.SPLIT_BRAIN, "", -1, 10 * S, 99 * S, runEnd));
        assertThat(whole(checker.check(events, longFault, runEnd, value - 1)).violations()).isEmpty();

        // a run that ends while the writes are still stopped says so
        List<FaultWindow> failover = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 10 * S),
                new FaultWindow(FaultKind.FAILOVER, "", -1, 10 * S, 11 * S, runEnd));
        events.removeIf(e -> e.nanos() > 100 * S && e.type() != Type.TIMEOUT);
        assertThat(checker.check(events, failover, runEnd, 10).get(1).violations())
                .anySatisfy(v -> assertThat(v).contains("no write accepted for 134.7 s until the run ended"));
        // a longer lease allows 10 leases; PgBouncer's login retry adds 15 s
        assertThat(new HistoryChecker("test", Duration.ofSeconds(5), Duration.ofSeconds(60)).progressBound())
                .isEqualTo(Duration.ofSeconds(50));
        assertThat(new HistoryChecker("postgresql-pgbouncer", LEASE, Duration.ofSeconds(60)).progressBound())
                .isEqualTo(Duration.ofSeconds(35));
    }

    @Test
    void aWorkerSilentLongerThanTheBoundIsStuckUnlessItWasPaused() {
        e(0.5, "w1", Type.TIMEOUT, -1, -1);
        e(15, "w1", Type.TIMEOUT, -1, -1);
        e(19, "w1", Type.TIMEOUT, -1, -1);
        assertThat(whole(check(baseline(), 0)).stuck()).isEqualTo(1);

        List<FaultWindow> paused = List.of(new FaultWindow(FaultKind.NONE, "", -1, 0, 0, 1 * S),
                new FaultWindow(FaultKind.PAUSE, "w1", -1, 1 * S, 12 * S, 20 * S));
        assertThat(whole(check(paused, 0)).stuck()).isZero();
    }

    @Test
    void historyLinesRoundTrip() {
        HistoryEvent e = new HistoryEvent(123, "w3", Type.ERROR, 7, -1, "acquire: LockUnavailableException: down");
        assertThat(HistoryEvent.parse(e.format())).isEqualTo(e);
        assertThat(HistoryEvent.parse("SLF4J: noise")).isNull();
    }
}
