package io.latchkey.cli.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Judges a fault run's history against the rules of docs/faults.md and returns one {@link FaultRow} per fault
 * window plus a {@code whole run} row:
 * <ul>
 *   <li><b>unsafe writes</b> 0: no two accepted writes of the same new register value (one overwrote the other
 *       without having read it);</li>
 *   <li><b>lost updates</b> 0: the register's final value equals the number of accepted writes;</li>
 *   <li><b>token order</b>: in commit order, each accepted write's token is above the previous holder's (equal only
 *       for the same holder);</li>
 *   <li><b>told</b>: a hold that overlapped another worker's hold of a higher token (a later grant: tokens
 *       increase with every grant) ended with {@code onLost} or {@code LockLostException} (a failed release counts:
 *       the holder got an error), unless its worker was killed;</li>
 *   <li><b>next grant</b>: after a holder was killed, paused or cut off, another worker gets the lock within
 *       lease + 1 s (the server frees it when the holder stops renewing);</li>
 *   <li><b>recovery</b> after a server fault: a hold granted after the fault began has a write accepted before the
 *       run ends (the time from the fault's start is reported);</li>
 *   <li><b>progress</b>: no stretch without an accepted write is longer than {@link #progressBound} (20 s, or 10
 *       leases if that is longer; 15 s more through PgBouncer), not counting the time a fault was in progress (from its start until it was
 *       undone) nor the time the machine stalled. A fault may stop the writes while it lasts, and recovering from
 *       it may take a failover, a reconnect or a new session, but then the lock must be taken again: a lock that
 *       stays taken after the fault (a node or key nobody will delete while its owner lives) is a violation of the
 *       window in which the writes stopped, even if a later fault happens to free it;</li>
 *   <li><b>stuck</b>: no worker goes without a step (grant, timeout, error, write) for longer than the stuck bound,
 *       time it spent paused by the verifier excepted.</li>
 * </ul>
 * The timing rules (next grant, stuck) allow the machine time the run lost ({@link StallMonitor}) on top of their
 * bounds. Overlapping holds are counted but are not a violation: under a pause or a partition the lock cannot prevent them;
 * fencing must then refuse the stale holder's writes.
 */
final class HistoryChecker {

    /** The machine time lost between two stamps (see {@link StallMonitor}). */
    interface Stalls {
        long stalledNanos(long from, long to);
    }

    private final String backend;
    private final Duration lease;
    private final Duration stuckBound;
    private final Stalls stalls;

    HistoryChecker(String backend, Duration lease, Duration stuckBound) {
        this(backend, lease, stuckBound, (from, to) -> 0);
    }

    /** A checker whose timing rules allow {@code stalls} (machine time lost) on top of their bounds. */
    HistoryChecker(String backend, Duration lease, Duration stuckBound, Stalls stalls) {
        this.backend = backend;
        this.lease = lease;
        this.stuckBound = stuckBound;
        this.stalls = stalls;
    }

    /** A worker's hold as it saw it: from the grant until it was told, released or killed. */
    private static final class HeldSpan {
        final String actor;
        final long token;
        final long start;
        long end;
        boolean told;
        boolean killed;
        boolean open = true;

        HeldSpan(String actor, long token, long start) {
            this.actor = actor;
            this.token = token;
            this.start = start;
        }
    }

    private static final class Counts {
        String firstUnsafe;
        String firstTokenOrder;
        int grants;
        int accepted;
        int refused;
        int unsafe;
        int overlaps;
        int tokenOrder;
        int lostHolds;
        int told;
        int stuck;
    }

    /**
     * @param events the whole history in time order
     * @param windows the baseline and each fault, contiguous, in time order
     * @param runEnd {@code nanoTime} when the workers were asked to stop
     * @param finalValue the register's value after the run
     */
    List<FaultRow> check(List<HistoryEvent> events, List<FaultWindow> windows, long runEnd, long finalValue) {
        List<HeldSpan> holds = holds(events, runEnd);
        Map<FaultWindow, Counts> counts = new LinkedHashMap<>();
        for (FaultWindow w : windows) {
            counts.put(w, new Counts());
        }
        Counts total = new Counts();
        List<HistoryEvent> writes = new ArrayList<>();
        for (HistoryEvent e : events) {
            Counts c = counts.get(windowOf(windows, e.nanos()));
            switch (e.type()) {
                case ACQUIRED -> bump(c, total, x -> x.grants++);
                case WRITE_OK -> {
                    bump(c, total, x -> x.accepted++);
                    writes.add(e);
                }
                case WRITE_REFUSED, READ_REFUSED -> bump(c, total, x -> x.refused++);
                default -> {
                }
            }
        }
        // Unsafe writes and token order, in commit order (the register's values).
        writes.sort(Comparator.comparingLong(HistoryEvent::value).thenComparingLong(HistoryEvent::nanos));
        for (int i = 1; i < writes.size(); i++) {
            HistoryEvent prev = writes.get(i - 1);
            HistoryEvent cur = writes.get(i);
            Counts c = counts.get(windowOf(windows, cur.nanos()));
            String pair = String.format(Locale.ROOT, "%s wrote %d with token %d after %s wrote %d with token %d",
                    cur.actor(), cur.value(), cur.token(), prev.actor(), prev.value(), prev.token());
            if (cur.value() == prev.value()) {
                bump(c, total, x -> x.unsafe++);
                if (c.firstUnsafe == null) {
                    c.firstUnsafe = pair;
                }
            }
            if (cur.token() < prev.token() || (cur.token() == prev.token() && !cur.actor().equals(prev.actor()))) {
                bump(c, total, x -> x.tokenOrder++);
                if (c.firstTokenOrder == null) {
                    c.firstTokenOrder = pair;
                }
            }
        }
        // Overlaps and lost holds: another worker's later grant (a higher token) while a hold lasted. The lost one is
        // the lower token, whatever the stamps say: a worker stamps its grant only after the server's answer reached
        // it, so a hold granted first may be stamped after the one that took it over.
        for (HeldSpan h : holds) {
            HeldSpan intruder = null;
            for (HeldSpan g : holds) {
                if (!g.actor.equals(h.actor) && g.token > h.token && g.start - h.end < 0 && h.start - g.end < 0
                        && (intruder == null || g.start < intruder.start)) {
                    intruder = g;
                }
            }
            if (intruder == null) {
                continue;
            }
            Counts c = counts.get(windowOf(windows, Math.max(intruder.start, h.start)));
            bump(c, total, x -> x.overlaps++);
            if (!h.killed) {
                bump(c, total, x -> x.lostHolds++);
                if (h.told) {
                    bump(c, total, x -> x.told++);
                }
            }
        }
        stuck(events, windows, runEnd, counts, total);
        Map<FaultWindow, List<String>> progress = progress(events, windows, runEnd);
        List<FaultRow> rows = new ArrayList<>();
        for (FaultWindow w : windows) {
            rows.add(row(hitOrMissed(w, holds), counts.get(w), events, runEnd, progress.getOrDefault(w, List.of())));
        }
        long lostUpdates = Math.max(0, total.accepted - finalValue);
        List<String> violations = new ArrayList<>();
        for (FaultRow r : rows) {
            for (String v : r.violations()) {
                violations.add(r.fault() + ": " + v);
            }
        }
        if (lostUpdates > 0) {
            violations.add(String.format(Locale.ROOT, "lost updates %d (register %d after %d accepted writes)",
                    lostUpdates, finalValue, total.accepted));
        }
        rows.add(new FaultRow(backend, "whole run", "register = " + finalValue, total.grants, total.accepted,
                total.refused, total.unsafe, lostUpdates, total.overlaps, total.tokenOrder, total.lostHolds,
                total.told, -1, -1, total.stuck, violations));
        return rows;
    }

    /**
     * The longest stretch without an accepted write the progress rule allows, outside faults: 20 s, or 10 leases if
     * that is longer, and 15 s more for a backend behind PgBouncer, which waits {@code server_login_retry} (15 s by
     * default) after a failed login before it tries the server again. In the suite's runs every healthy recovery
     * took less than 5 s after the fault was undone, except PostgreSQL restarted behind PgBouncer: 16.7 s.
     */
    Duration progressBound() {
        return progressBound(lease, backend);
    }

    /** {@link #progressBound()} of a run of {@code backend} with this lease. */
    static Duration progressBound(Duration lease, String backend) {
        Duration leases = lease.multipliedBy(10);
        Duration bound = leases.compareTo(Duration.ofSeconds(20)) > 0 ? leases : Duration.ofSeconds(20);
        return backend.contains("pgbouncer") ? bound.plusSeconds(15) : bound;
    }

    /** The progress rule's violations, by the window in which the writes stopped. */
    private Map<FaultWindow, List<String>> progress(List<HistoryEvent> events, List<FaultWindow> windows,
                                                    long runEnd) {
        Map<FaultWindow, List<String>> result = new HashMap<>();
        long bound = progressBound().toNanos();
        long previous = Long.MIN_VALUE;
        List<Long> writes = new ArrayList<>();
        for (HistoryEvent e : events) {
            if (e.type() == HistoryEvent.Type.WRITE_OK && e.nanos() - runEnd <= 0) {
                writes.add(e.nanos());
            }
        }
        if (writes.isEmpty()) {
            return result; // nothing was ever written: the recovery and stuck rules speak for such a run
        }
        writes.add(runEnd);
        for (long next : writes) {
            if (previous != Long.MIN_VALUE && next - previous > bound) {
                long underFaults = 0;
                for (FaultWindow w : windows) {
                    if (w.kind() != FaultKind.NONE) {
                        underFaults += Math.max(0, Math.min(next, w.end()) - Math.max(previous, w.start()));
                    }
                }
                long stalled = stalls.stalledNanos(previous, next);
                long length = next - previous - underFaults;
                if (length > bound + stalled) {
                    FaultWindow w = windowOf(windows, previous);
                    String machine = stalled == 0 ? ""
                            : String.format(Locale.ROOT, ", %.1f s the machine stalled", stalled / 1e9);
                    result.computeIfAbsent(w, k -> new ArrayList<>()).add(String.format(Locale.ROOT,
                            "no write accepted for %.1f s%s (%.1f s of it under faults%s): writes stopped for "
                                    + "longer than %d s outside faults",
                            (next - previous) / 1e9, next == runEnd ? " until the run ended" : "",
                            underFaults / 1e9, machine, progressBound().toSeconds()));
                }
            }
            previous = next;
        }
        return result;
    }

    private FaultRow row(FaultWindow w, Counts c, List<HistoryEvent> events, long runEnd,
                         List<String> progressViolations) {
        List<String> violations = new ArrayList<>();
        if (!w.problem().isEmpty()) {
            violations.add("the verifier could not complete the fault: " + w.problem());
        }
        if (c.unsafe > 0) {
            violations.add("unsafe writes " + c.unsafe + " (first: " + c.firstUnsafe + ")");
        }
        if (c.tokenOrder > 0) {
            violations.add("accepted tokens out of order " + c.tokenOrder + " (first: " + c.firstTokenOrder + ")");
        }
        // A holder granted by a master cut off from its replicas cannot know (replication is asynchronous): the
        // split brain's row reports it; the fence must refuse its writes.
        if (c.told < c.lostHolds && w.kind() != FaultKind.SPLIT_BRAIN) {
            violations.add(String.format(Locale.ROOT, "lost holders not told %d of %d", c.lostHolds - c.told,
                    c.lostHolds));
        }
        if (c.stuck > 0) {
            violations.add("stuck workers " + c.stuck);
        }
        long nextGrant = -1;
        if (w.kind().targetsHolder() && w.targetToken() >= 0) {
            nextGrant = Long.MAX_VALUE;
            for (HistoryEvent e : events) {
                if (e.type() == HistoryEvent.Type.ACQUIRED && !e.actor().equals(w.target())
                        && e.nanos() - w.start() > 0) {
                    nextGrant = Duration.ofNanos(e.nanos() - w.start()).toMillis();
                    break;
                }
            }
            long stalled = nextGrant == Long.MAX_VALUE ? 0 : Duration.ofNanos(stalls.stalledNanos(w.start(),
                    w.start() + Duration.ofMillis(nextGrant).toNanos())).toMillis();
            long bound = lease.toMillis() + 1_000 + stalled;
            if (nextGrant > bound) {
                violations.add(nextGrant == Long.MAX_VALUE ? "no other worker got the lock after the fault"
                        : String.format(Locale.ROOT, "next grant after %d ms > lease + 1 s (%d ms%s)", nextGrant,
                        bound, stalled == 0 ? "" : ", with " + stalled + " ms the machine stalled"));
            }
        }
        long recovery = -1;
        if (w.kind().serverSide()) {
            // The first write of a hold granted after the fault began: a hold from before may still write late.
            recovery = Long.MAX_VALUE;
            Map<String, Long> grantedAt = new HashMap<>();
            for (HistoryEvent e : events) {
                if (e.type() == HistoryEvent.Type.ACQUIRED) {
                    grantedAt.put(e.actor(), e.nanos());
                } else if (e.type() == HistoryEvent.Type.WRITE_OK && e.nanos() - runEnd <= 0
                        && grantedAt.getOrDefault(e.actor(), w.start()) - w.start() > 0) {
                    recovery = Duration.ofNanos(e.nanos() - w.start()).toMillis();
                    break;
                }
            }
            if (recovery == Long.MAX_VALUE) {
                violations.add("no write accepted again before the run ended");
            }
        }
        violations.addAll(progressViolations);
        String target = w.target().isEmpty() ? "" : w.target() + (w.targetToken() >= 0
                ? " (token " + w.targetToken() + ")" : " (held nothing)");
        return new FaultRow(backend, w.kind().label(), target, c.grants, c.accepted, c.refused, c.unsafe, 0,
                c.overlaps, c.tokenOrder, c.lostHolds, c.told, nextGrant, recovery, c.stuck, violations);
    }

    /** Gaps longer than the bound between a worker's consecutive steps, minus the time it was paused. */
    private void stuck(List<HistoryEvent> events, List<FaultWindow> windows, long runEnd,
                       Map<FaultWindow, Counts> counts, Counts total) {
        Map<String, Long> last = new HashMap<>();
        Map<String, Boolean> gone = new HashMap<>();
        Map<String, Boolean> flagged = new HashMap<>();
        List<long[]> gaps = new ArrayList<>();
        List<String> gapActors = new ArrayList<>();
        for (HistoryEvent e : events) {
            if (e.actor().equals(HistoryEvent.VERIFIER)) {
                continue;
            }
            Long before = last.put(e.actor(), e.nanos());
            if (before != null) {
                gaps.add(new long[] {before, e.nanos()});
                gapActors.add(e.actor());
            }
            if (e.type() == HistoryEvent.Type.EXITED) {
                gone.put(e.actor(), true);
            }
        }
        for (Map.Entry<String, Long> l : last.entrySet()) {
            if (!gone.containsKey(l.getKey())) {
                gaps.add(new long[] {l.getValue(), runEnd});
                gapActors.add(l.getKey());
            }
        }
        for (int i = 0; i < gaps.size(); i++) {
            long[] g = gaps.get(i);
            String actor = gapActors.get(i);
            long length = g[1] - g[0];
            for (FaultWindow w : windows) {
                if (w.kind() == FaultKind.PAUSE && w.target().equals(actor)) {
                    length -= Math.max(0, Math.min(g[1], w.end()) - Math.max(g[0], w.start()));
                }
            }
            length -= stalls.stalledNanos(g[0], g[1]);
            if (length > stuckBound.toNanos() && flagged.putIfAbsent(actor + "@" + windowOf(windows, g[0]), true) == null) {
                bump(counts.get(windowOf(windows, g[0])), total, x -> x.stuck++);
            }
        }
    }

    /**
     * A fault aimed at a holder whose hold had already ended (by its own stamps) when the fault landed hit nothing:
     * the target held no token then, and the next-grant rule does not apply.
     */
    private static FaultWindow hitOrMissed(FaultWindow w, List<HeldSpan> holds) {
        if (!w.kind().targetsHolder() || w.targetToken() < 0) {
            return w;
        }
        for (HeldSpan h : holds) {
            if (h.actor.equals(w.target()) && h.token == w.targetToken() && h.end - w.start() < 0 && !h.killed) {
                return new FaultWindow(w.kind(), w.target(), -1, w.start(), w.end(), w.windowEnd(), w.problem());
            }
        }
        return w;
    }

    private static FaultWindow windowOf(List<FaultWindow> windows, long nanos) {
        for (FaultWindow w : windows) {
            if (w.contains(nanos)) {
                return w;
            }
        }
        return nanos - windows.get(0).start() < 0 ? windows.get(0) : windows.get(windows.size() - 1);
    }

    private static void bump(Counts c, Counts total, java.util.function.Consumer<Counts> f) {
        f.accept(c);
        f.accept(total);
    }

    private static List<HeldSpan> holds(List<HistoryEvent> events, long runEnd) {
        List<HeldSpan> holds = new ArrayList<>();
        Map<String, HeldSpan> open = new HashMap<>();
        for (HistoryEvent e : events) {
            HeldSpan h = open.get(e.actor());
            switch (e.type()) {
                case ACQUIRED -> {
                    if (h != null) {
                        end(h, e.nanos(), open);
                    }
                    HeldSpan n = new HeldSpan(e.actor(), e.token(), e.nanos());
                    holds.add(n);
                    open.put(e.actor(), n);
                }
                case LOST, RELEASE_LOST, RELEASE_ERROR -> {
                    if (h != null && h.token == e.token()) {
                        h.told = true;
                        end(h, e.nanos(), open);
                    }
                }
                case RELEASED -> {
                    if (h != null && h.token == e.token()) {
                        end(h, e.nanos(), open);
                    }
                }
                case EXITED -> {
                    if (h != null) {
                        h.killed = true;
                        end(h, e.nanos(), open);
                    }
                }
                default -> {
                }
            }
        }
        for (HeldSpan h : new ArrayList<>(open.values())) {
            end(h, runEnd, open);
        }
        return holds;
    }

    private static void end(HeldSpan h, long nanos, Map<String, HeldSpan> open) {
        h.end = nanos;
        h.open = false;
        open.remove(h.actor);
    }
}
