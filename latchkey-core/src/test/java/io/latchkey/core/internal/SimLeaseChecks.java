package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The lease properties a {@link SimFaultModel} checks after every event, for every owner of every client:
 * <ul>
 *   <li>at the server's view, no two owners hold an exclusive lock (or the write lock beside a reader): among the
 *       owners that believe they hold, at most one hold is still on the server;</li>
 *   <li>every lost lease is told to its holder: an owner that believes it holds a hold the server no longer has
 *       (expired, ended with its client's session) learns so within {@code toldWithin};</li>
 *   <li>once told ({@code onLost} ran), a lease never turns valid again.</li>
 * </ul>
 * Holds from before a server restart are left out of the second: the restart lost them without a trace the engine
 * could see before its next renewal, as the run's own checks allow.
 */
final class SimLeaseChecks {

    private final long toldWithin;
    /** Every hold seen held, and when its {@code onLost} ran (null before). */
    private final Map<Hold, long[]> told = new IdentityHashMap<>();
    /** Holds believed held while the server no longer has them, since when. */
    private final Map<Hold, Long> goneSince = new IdentityHashMap<>();

    SimLeaseChecks(long toldWithin) {
        this.toldWithin = toldWithin;
    }

    /** The hold {@code a} has now (a lease or a thread's hold), or null. */
    static Hold holdOf(EngineSimulation.Actor a) {
        return a.lease instanceof Hold h ? h : a.threadHold;
    }

    static boolean onServer(EngineSimulation sim, Hold h) {
        Grant g = h.grant;
        return sim.server.holds(g.name(), g.ownerId(), g.fencingToken());
    }

    void check(EngineSimulation sim) {
        if (sim.failure != null) {
            return;
        }
        long now = sim.sched.nanoTime();
        Map<String, Hold> exclusive = new HashMap<>();
        Hold reader = null;
        Set<Hold> current = Collections.newSetFromMap(new IdentityHashMap<>());
        for (EngineSimulation.Actor a : sim.actors) {
            Hold h = holdOf(a);
            if (h == null) {
                continue;
            }
            current.add(h);
            long[] at = told.get(h);
            if (at == null) {
                long[] fresh = {Long.MIN_VALUE};
                told.put(h, fresh);
                h.onLost(() -> fresh[0] = sim.sched.nanoTime());
                at = fresh;
            }
            String name = a.lease != null ? a.leaseName : EngineSimulation.LOCK;
            if (at[0] != Long.MIN_VALUE && h.isValid()) {
                sim.fail(String.format("%s's lease of %s (token %d) is valid again %d ms after it was told it was "
                        + "lost", a, name, h.grant.fencingToken(), (now - at[0]) / EngineSimulation.MS));
                return;
            }
            if (!a.holds(name)) {
                goneSince.remove(h);
            } else if (onServer(sim, h)) {
                goneSince.remove(h);
                if (name.equals(EngineSimulation.RW_READ)) {
                    reader = h;
                } else {
                    Hold other = exclusive.put(h.grant.name(), h);
                    if (other != null) {
                        sim.fail(String.format("the server counts two holders of %s: %s and %s", name, other, h));
                        return;
                    }
                }
            } else if (h.grant.fencingToken() > sim.tokensAtRestart) {
                Long since = goneSince.putIfAbsent(h, now);
                if (since != null && now - since > toldWithin) {
                    sim.fail(String.format("%s still believes it holds %s (token %d) %d ms after the server ended it",
                            a, name, h.grant.fencingToken(), (now - since) / EngineSimulation.MS));
                    return;
                }
            }
        }
        if (reader != null && exclusive.containsKey(EngineSimulation.RW)) {
            sim.fail(String.format("the server counts a writer of %s (%s) beside a reader (%s)", EngineSimulation.RW,
                    exclusive.get(EngineSimulation.RW), reader));
            return;
        }
        told.keySet().retainAll(current);
        goneSince.keySet().retainAll(current);
    }
}
