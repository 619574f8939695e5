package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One client (client 0) loses its connection while the others go on: once or twice, for 0.1 to 8 s, no request of
 * it reaches the server (each fails after a connect timeout of 100 ms or after the operation timeout, a seeded
 * choice) and its pushes are lost.
 * With a session (a seeded choice, as ZooKeeper's), the client's holds are in doubt while it is cut off
 * ({@link LockEngine#certainty}: a lease is not valid meanwhile), the server ends them all with its fair-queue
 * entries once the cut outlasts the session timeout, and the client, back, is told so ({@link LockEngine#markLost});
 * without one (as Redis), its holds stay on the server until their leases run out, and only the engine's own bound
 * (renewals that get no answer) tells the client.
 *
 * <p>What must hold: the run's owners'-view exclusion, unexcused (a cut-off holder is told before the server can
 * give its lock to another); fencing tokens only grow; every lease the server ended is told to its holder within a
 * renewal round; a lease told lost never turns valid again; the other clients acquire what the cut-off one held
 * within the run's wake-up bound (plus the cut); waits and clean-ups end within their bounds plus the cut.
 */
final class SimSessionLoss implements SimFaultModel {

    static final int VICTIM = 0;
    static final long SESSION_TIMEOUT_NANOS = 2_000 * EngineSimulation.MS;

    private final Random rng;
    private final boolean session;
    private final boolean failFast;
    /** The cuts: {time from the start, length}, within the run (so that the latch can be opened at its end). */
    private final List<long[]> cuts = new ArrayList<>();
    /** The cuts' total length. */
    private long cutTotal;
    private boolean down;
    private boolean expired;
    private long lastReconnect = Long.MIN_VALUE;
    /** Semaphore permits whose give never reached the server (added back by the operator). */
    int permitsNotGiven;
    private SimLeaseChecks checks;

    SimSessionLoss(long seed) {
        rng = new Random(seed * 0x9E3779B97F4A7C15L + 29);
        session = rng.nextBoolean();
        failFast = rng.nextBoolean();
    }

    @Override
    public void start(EngineSimulation sim) {
        long at = 0;
        for (int i = 1 + rng.nextInt(2); i > 0 && sim.runFor - at > 200 * EngineSimulation.MS; i--) {
            at += rng.nextInt((int) ((sim.runFor - at) / EngineSimulation.MS) / 2) * EngineSimulation.MS;
            long length = Math.min(sim.runFor - at, (100 + rng.nextInt(8_000)) * EngineSimulation.MS);
            cuts.add(new long[] {at, length});
            at += length;
            cutTotal += length;
        }
        long round = sim.options.renewalInterval().toNanos() + sim.remoteTimeout;
        checks = new SimLeaseChecks(round + 4 * sim.faults.maxDelayNanos() + 200 * EngineSimulation.MS);
        EngineSimulation.Client victim = sim.clients.get(VICTIM);
        victim.backend.cut = () -> down;
        victim.backend.failFast = failFast;
        if (session) {
            victim.engine.certainty(g -> !down);
        }
        for (long[] c : cuts) {
            sim.sched.at(c[0], () -> {
                sim.trace(String.format("c%d's connection is lost for %d ms", VICTIM, c[1] / EngineSimulation.MS));
                down = true;
            });
            if (session && c[1] > SESSION_TIMEOUT_NANOS) {
                sim.sched.at(c[0] + SESSION_TIMEOUT_NANOS, () -> expire(sim));
            }
            sim.sched.at(c[0] + c[1], () -> reconnect(sim));
        }
    }

    /** The server ends the victim's session: every lock hold and fair-queue entry of its owners goes. */
    private void expire(EngineSimulation sim) {
        sim.trace(String.format("server: c%d's session expires", VICTIM));
        expired = true;
        String prefix = "c" + VICTIM + ":";
        SimServer server = sim.server;
        List<String> changed = new ArrayList<>();
        for (Iterator<Map.Entry<String, SimServer.LockRec>> it = server.locks.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, SimServer.LockRec> e = it.next();
            if (e.getValue().owner().startsWith(prefix)) {
                it.remove();
                changed.add(e.getKey());
            }
        }
        for (Map.Entry<String, Map<String, SimServer.LockRec>> e : server.readers.entrySet()) {
            if (e.getValue().keySet().removeIf(o -> o.startsWith(prefix))) {
                changed.add(e.getKey());
            }
        }
        server.readers.values().removeIf(Map::isEmpty);
        for (Map.Entry<String, java.util.LinkedHashMap<String, Long>> e : server.fairQueues.entrySet()) {
            if (e.getValue().keySet().removeIf(o -> o.startsWith(prefix))) {
                changed.add(e.getKey());
            }
        }
        server.fairQueues.values().removeIf(Map::isEmpty);
        changed.forEach(server::changed);
    }

    /** Back: the backend tells the engine of every hold the expired session took with it. */
    private void reconnect(EngineSimulation sim) {
        if (expired) {
            expired = false;
            EngineSimulation.Client victim = sim.clients.get(VICTIM);
            for (EngineSimulation.Actor a : sim.actors) {
                Hold h = a.client == victim ? SimLeaseChecks.holdOf(a) : null;
                if (h != null && h.isHeld() && !SimLeaseChecks.onServer(sim, h)) {
                    Grant g = h.grant;
                    victim.engine.markLost(g, "the session expired");
                }
            }
        }
        sim.trace(String.format("c%d is connected again", VICTIM));
        down = false;
        lastReconnect = sim.sched.nanoTime();
    }

    @Override
    public void check(EngineSimulation sim) {
        if (sim.server.permitsNotGiven > 0) {
            // a semaphore's give that never reached the server loses its permits for good (gives are not
            // retried: one whose answer was lost may have been applied); the operator adds them back, so that a
            // waiter for them can finish and the run can count the rest
            int n = sim.server.permitsNotGiven;
            sim.server.permitsNotGiven = 0;
            permitsNotGiven += n;
            sim.trace(String.format("%d semaphore permit(s) whose give never reached the server are added back", n));
            sim.server.give(EngineSimulation.SEM, n);
        }
        checks.check(sim);
    }

    @Override
    public boolean outOfLine(EngineSimulation sim, EngineSimulation.Actor a) {
        return a.client.id == VICTIM && (down || a.calledAt <= lastReconnect);
    }

    @Override
    public boolean endsLeases() {
        return true;
    }

    @Override
    public long slackNanos() {
        // a clean-up that failed through every cut tries again at most this long after the last one ended
        return cutTotal + AttemptCleanUps.MAX_RETRY_MILLIS * EngineSimulation.MS;
    }

    @Override
    public String describe() {
        StringBuilder sb = new StringBuilder(" -Dlatchkey.sim.model=session (c0 cut off");
        for (long[] c : cuts) {
            sb.append(String.format(" at %d ms for %d ms", c[0] / EngineSimulation.MS, c[1] / EngineSimulation.MS));
        }
        return sb.append(session ? ", with a session" : ", without a session")
                .append(failFast ? ", requests fail after 100 ms)" : ", requests time out)").toString();
    }
}
