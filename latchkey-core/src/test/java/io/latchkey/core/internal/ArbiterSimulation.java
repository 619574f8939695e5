package io.latchkey.core.internal;

import io.latchkey.core.NameArbiter;
import io.latchkey.core.NameArbiter.GrantState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One run of the deterministic simulation of the in-process arbiter ({@link NameArbiter}), the arbitration the
 * {@code mem://} server and the file backend share. A simulated server keeps one name in a real {@code NameArbiter}
 * and speaks the mem server's protocol of single attempts: an attempt is granted when the arbiter lets its owner take
 * the name, else the owner keeps its place and is told when to look again (at the earliest lease end); a withdrawal
 * gives the place up; every change that can let a waiter in is pushed to the waiters; a hand-off ends an exclusive
 * hold and grants the next owner in one step; an outage loses the queue (as the mem server's does). Owners on a few
 * clients follow the engine's contract: each attempt at a time, a re-check on the hint or a push, a withdrawal when
 * they give up (deadline, cancel) once no attempt of theirs is out, a release of a grant that reaches an owner who
 * left, renewals while they hold, a hand-off only to a waiter of the same client and only while no attempt of that
 * client is out (none is sent until it answers).
 *
 * <p>Faults, seeded: messages delayed (in order per owner, as one owner's calls are; owners interleave freely), answers
 * lost (the owner gives up on them after the operation timeout and cleans up what it can), pushes lost, server
 * outages, pauses of an owner's client (renewals late), clock steps of one client (it reads its lease on its own
 * clock), deadlines and cancels at any moment.
 *
 * <p>Checked after every event: the arbiter holds at most one exclusive hold, or only shared ones (a downgraded
 * owner's read beside its write); its queue is the run's own model of arrival order; a grant follows the arbiter's
 * promise (an exclusive one to the first in line, a shared one with only readers ahead); no owner stays queued after
 * it gave up with nothing of its own on the way; every hold is its owner's, or its release or answer is on the way,
 * or its answer was lost (then it ends with its lease); no two owners believe they hold it exclusively (a client whose
 * clock stepped back is excused for its step); a free name with waiters is taken within the bound of a re-check, a
 * lost answer and the round trips. At the end, after everyone stopped and the leases of lost answers ran out, the
 * arbiter is idle.
 */
final class ArbiterSimulation {

    static final long MS = 1_000_000L;
    static final long LEASE = 600 * MS;
    static final long OP_TIMEOUT = 1_000 * MS;
    static final long RECHECK = 300 * MS;

    final long seed;
    final Random rng;
    final SimScheduler sched = new SimScheduler();
    final NameArbiter<GrantState> arbiter = new NameArbiter<>();
    final List<String> trace = new EngineSimulation.TraceBuffer(Integer.getInteger("latchkey.sim.trace", 60));
    final List<Owner> owners = new ArrayList<>();
    /** The run's own model of the arbiter's queue: owners in arrival order. */
    final List<String> order = new ArrayList<>();
    /** Holds whose grant's answer was lost: their owner cannot know the token; they end with their lease. */
    final Set<Long> orphans = new HashSet<>();
    final long maxDelay;
    final double lose;
    final double losePush;
    final boolean readWrite;
    final long runFor;
    /** Clock steps of client 0, summed backwards (what an owner there may over-believe its lease by). */
    long backwards;
    final long[] clockOffset;
    final long[] pausedUntil;
    /** Per client: a hand-off is out (the engine then sends no attempt of the name, as it has none out then). */
    final boolean[] handOffOut;
    final List<Owner> deferred = new ArrayList<>();
    final boolean handOffGuard;
    boolean down;
    boolean stopping;
    long tokens;
    long freeWithWaitersSince = -1;
    long wakeAt = GrantState.ENDED;
    String failure;

    enum State { IDLE, WAITING, LEFT, HOLDING, DONE }

    final class Owner {
        final String id;
        final int client;
        State state = State.IDLE;
        boolean shared;
        long deadline = Long.MAX_VALUE;
        int epoch;
        boolean inFlight;
        int pending;
        long lastArrival;
        long token = -1;
        /** Lease end as this owner's client believes it, on that client's clock. */
        long believedUntil;
        /** The same on the true clock (what the server's lease end is at least). */
        long validUntil;

        Owner(String id, int client) {
            this.id = id;
            this.client = client;
        }

        long clock() {
            return sched.nanoTime() + clockOffset[client];
        }

        @Override
        public String toString() {
            return id + "/" + state + (inFlight ? "+attempt" : "") + (pending > 0 ? "+" + pending : "");
        }
    }

    ArbiterSimulation(long seed) {
        this(seed, true);
    }

    /**
     * @param handOffGuard whether owners keep the engine's rule that no attempt of a name is out while a hand-off of
     *        it is (without it, an attempt that crosses a hand-off queues the owner the hand-off just served, and its
     *        entry stays behind: the arbiter relies on the rule)
     */
    ArbiterSimulation(long seed, boolean handOffGuard) {
        this.seed = seed;
        this.handOffGuard = handOffGuard;
        this.rng = new Random(seed);
        boolean network = rng.nextInt(4) != 0;
        maxDelay = (1 + rng.nextInt(network ? 40 : 5)) * MS;
        lose = network ? 0.03 * rng.nextInt(3) : 0;
        losePush = network ? 0.2 * rng.nextInt(3) : 0;
        readWrite = rng.nextBoolean();
        runFor = (2 + rng.nextInt(4)) * 1000 * MS;
        int clients = 1 + rng.nextInt(3);
        clockOffset = new long[clients];
        pausedUntil = new long[clients];
        handOffOut = new boolean[clients];
        for (int c = 0; c < clients; c++) {
            for (int i = 1 + rng.nextInt(3); i > 0; i--) {
                owners.add(new Owner("c" + c + "o" + owners.size(), c));
            }
        }
        trace(String.format("seed %d: %d owners on %d clients, delay <= %d ms, lose %.2f, lose pushes %.1f, %s",
                seed, owners.size(), clients, maxDelay / MS, lose, losePush, readWrite ? "read-write" : "exclusive"));
    }

    /** Runs the seed; {@return {@code null}, or the first broken property with the run's last events}. */
    String run() {
        for (Owner o : owners) {
            sched.at(rng.nextInt(200) * MS, () -> think(o));
        }
        if (rng.nextInt(3) == 0) {
            long at = rng.nextInt((int) (runFor / MS)) * MS;
            sched.at(at, () -> outage(true));
            sched.at(at + (50 + rng.nextInt(700)) * MS, () -> outage(false));
        }
        if (rng.nextInt(3) == 0) {
            int c = rng.nextInt(pausedUntil.length);
            long at = rng.nextInt((int) (runFor / MS)) * MS;
            long length = (100 + rng.nextInt(1500)) * MS;
            sched.at(at, () -> {
                pausedUntil[c] = sched.nanoTime() + length;
                trace("client " + c + " pauses for " + length / MS + " ms");
            });
        }
        if (rng.nextInt(3) == 0) {
            for (int i = 1 + rng.nextInt(2); i > 0; i--) {
                long step = (rng.nextBoolean() ? 1 : -1) * (1 + rng.nextInt(400)) * MS;
                backwards += Math.max(0, -step);
                sched.at(rng.nextInt((int) (runFor / MS)) * MS, () -> {
                    clockOffset[0] += step;
                    trace("client 0's clock steps " + step / MS + " ms");
                });
            }
        }
        sched.runUntil(sched.nanoTime() + runFor, this::check);
        if (failure != null) {
            return report();
        }
        trace("stopping");
        stopping = true;
        for (Owner o : owners) {
            stop(o);
        }
        sched.runUntil(sched.nanoTime() + 2 * OP_TIMEOUT + 2 * LEASE, this::check);
        if (failure == null) {
            serve(() -> {
                expire(sched.nanoTime());
                return null;
            });
            if (!arbiter.isIdle()) {
                fail("not idle after everyone stopped: holds " + arbiter.holds().size() + ", queue "
                        + arbiter.queue().keySet());
            }
        }
        return failure == null ? null : report();
    }

    // ------------------------------------------------------------------------------------------------- the server

    private <T> T serve(Supplier<T> step) {
        return step.get();
    }

    private void expire(long now) {
        List<GrantState> ended = arbiter.expire(now);
        if (!ended.isEmpty()) {
            for (GrantState h : ended) {
                trace("server: lease of " + h.owner() + "#" + h.token() + " ran out");
                orphans.remove(h.token());
            }
            changed();
        }
    }

    /** An attempt: the hold granted, or the re-check hint (a {@code Long}). */
    private Object tryAcquire(Owner o, boolean shared) {
        long now = sched.nanoTime();
        expire(now);
        if (arbiter.mayTake(o.id, shared)) {
            checkPromise(o, shared);
            GrantState h = new GrantState(o.id, ++tokens, shared, now + LEASE, "c" + o.client, 0);
            order.remove(o.id);
            if (arbiter.grant(h)) {
                changed();
            }
            trace("server: grants " + o.id + "#" + h.token() + (shared ? " (shared)" : ""));
            return h;
        }
        arbiter.enqueue(o.id, new NameArbiter.Waiting(shared, 0));
        if (!order.contains(o.id)) {
            order.add(o.id);
        }
        ensureWake();
        long earliest = arbiter.earliestLeaseEnd();
        return earliest == GrantState.ENDED ? RECHECK : Math.max(1, earliest - now);
    }

    /** The arbiter's promise, from the run's own model of the queue: who may be granted now. */
    private void checkPromise(Owner o, boolean shared) {
        String exclusive = arbiter.exclusiveOwner();
        if (exclusive != null) {
            if (!(shared && exclusive.equals(o.id))) {
                fail(o.id + " granted beside the exclusive hold of " + exclusive);
            }
            return; // a downgrade, whatever the queue
        }
        if (!arbiter.holds().isEmpty() && !shared) {
            fail(o.id + " granted exclusively beside shared holds");
        }
        int at = order.indexOf(o.id);
        List<String> ahead = at < 0 ? order : order.subList(0, at);
        for (String a : ahead) {
            if (!shared || !arbiter.queue().get(a).shared()) {
                fail(o.id + " granted" + (shared ? " (shared)" : "") + " ahead of " + a + " in " + order);
                return;
            }
        }
    }

    private void withdraw(Owner o) {
        order.remove(o.id);
        if (arbiter.withdraw(o.id) != null) {
            changed();
        }
    }

    private boolean release(Owner o, long token) {
        expire(sched.nanoTime());
        GrantState h = arbiter.find(o.id, token);
        if (h != null && arbiter.remove(h)) {
            changed();
            return true;
        }
        return false;
    }

    private boolean renew(Owner o, long token) {
        long now = sched.nanoTime();
        expire(now);
        GrantState h = arbiter.find(o.id, token);
        boolean ok = h != null && h.renew(now, LEASE);
        ensureWake();
        return ok;
    }

    /** Hands {@code from}'s exclusive hold to {@code to}; {@return the new hold, or {@code null}}. */
    private GrantState handOff(Owner from, long token, Owner to) {
        long now = sched.nanoTime();
        expire(now);
        GrantState h = arbiter.find(from.id, token);
        if (h == null || h.shared()) {
            return null;
        }
        GrantState next = new GrantState(to.id, ++tokens, false, now + LEASE, "c" + to.client, 0);
        if (!arbiter.handOver(h, next)) {
            fail("hand-over of an exclusive hold refused");
        }
        order.remove(to.id);
        trace("server: hands " + from.id + "#" + token + " to " + to.id + "#" + next.token());
        return next;
    }

    /** Tells every waiter (after the change, each by its own push, which may be lost or late). */
    private void changed() {
        ensureWake();
        for (Owner o : owners) {
            if (o.state == State.WAITING && rng.nextDouble() >= losePush) {
                int epoch = o.epoch;
                sched.at(delay(), () -> {
                    if (o.state == State.WAITING && o.epoch == epoch && !o.inFlight) {
                        attempt(o);
                    }
                });
            }
        }
    }

    /** One wake-up at the earliest lease end while anyone waits, as the mem server keeps. */
    private void ensureWake() {
        long earliest = arbiter.earliestLeaseEnd();
        if (arbiter.queue().isEmpty() || earliest == GrantState.ENDED || earliest == wakeAt) {
            return;
        }
        wakeAt = earliest;
        sched.at(earliest - sched.nanoTime(), () -> {
            if (wakeAt == earliest) {
                wakeAt = GrantState.ENDED;
                expire(sched.nanoTime());
                ensureWake();
            }
        });
    }

    private void outage(boolean start) {
        down = start;
        trace("server " + (start ? "goes down: the queue is lost" : "is back"));
        if (start) {
            arbiter.clearQueue();
            order.clear();
            changed();
        }
    }

    // ------------------------------------------------------------------------------------------------ the network

    private long delay() {
        return rng.nextInt((int) maxDelay + 1);
    }

    private static final Object DOWN = "down";
    private static final Object LOST = "lost";

    /**
     * Sends {@code what} for {@code o}: it reaches the server after this owner's earlier calls, runs there, and its
     * answer comes back late, or never (then the owner gives up on it after the operation timeout).
     */
    private void send(Owner o, String what, Supplier<Object> atServer, Consumer<Object> onAnswer) {
        long arrival = Math.max(o.lastArrival, sched.nanoTime() + delay());
        o.lastArrival = arrival;
        o.pending++;
        sched.at(arrival - sched.nanoTime(), () -> {
            Object result = down ? DOWN : atServer.get();
            if (rng.nextDouble() < lose) {
                trace("net: answer to " + o.id + "'s " + what + " lost");
                freeWithWaitersSince = -1; // its owner may stay first in line until it gives up on the answer
                if (result instanceof GrantState h) {
                    orphans.add(h.token());
                }
                sched.at(OP_TIMEOUT, () -> {
                    o.pending--;
                    onAnswer.accept(LOST);
                });
                return;
            }
            sched.at(delay(), () -> {
                o.pending--;
                onAnswer.accept(result);
            });
        });
    }

    // ------------------------------------------------------------------------------------------------- the owners

    private void think(Owner o) {
        if (o.state != State.IDLE || stopping) {
            return;
        }
        o.state = State.WAITING;
        o.epoch++;
        o.shared = readWrite && rng.nextBoolean();
        int epoch = o.epoch;
        int wait = rng.nextInt(4);
        o.deadline = wait == 0 ? o.clock() : wait == 1 ? Long.MAX_VALUE : o.clock() + (20 + rng.nextInt(800)) * MS;
        if (o.deadline != Long.MAX_VALUE) {
            sched.at(o.deadline - o.clock(), () -> giveUp(o, epoch, "deadline"));
        }
        if (rng.nextInt(5) == 0) {
            sched.at(rng.nextInt(600) * MS, () -> giveUp(o, epoch, "cancel"));
        }
        trace(o.id + " acquires" + (o.shared ? " shared" : "") + (wait == 0 ? " without waiting" : ""));
        attempt(o);
    }

    private void attempt(Owner o) {
        if (handOffGuard && handOffOut[o.client]) {
            // the engine sends no attempt of a name while a hand-off of it is out
            deferred.add(o);
            return;
        }
        o.inFlight = true;
        int epoch = o.epoch;
        boolean shared = o.shared;
        long sentAt = sched.nanoTime();
        long sentAtClient = o.clock();
        send(o, "attempt", () -> tryAcquire(o, shared), r -> answered(o, epoch, r, sentAt, sentAtClient));
    }

    private void answered(Owner o, int epoch, Object r, long sentAt, long sentAtClient) {
        boolean current = o.epoch == epoch;
        if (current) {
            o.inFlight = false;
        }
        if (r instanceof GrantState h) {
            if (current && o.state == State.WAITING) {
                hold(o, h.token(), sentAt, sentAtClient);
            } else {
                trace(o.id + " got #" + h.token() + " after it left: gives it back");
                giveBack(o, h.token());
            }
            return;
        }
        if (r == DOWN || r == LOST) {
            // the attempt failed: the waiter fails; what it may have left at the server is withdrawn
            if (r == LOST) {
                send(o, "withdraw", () -> {
                    withdraw(o);
                    return null;
                }, x -> { });
            }
            if (current && (o.state == State.WAITING || o.state == State.LEFT)) {
                trace(o.id + "'s attempt failed (" + r + ")");
                idle(o);
            }
            return;
        }
        long hint = (Long) r;
        if (current && o.state == State.WAITING) {
            if (o.clock() - o.deadline >= 0) {
                giveUp(o, epoch, "deadline");
                return;
            }
            long recheck = Math.min(Math.min(hint, RECHECK), Math.max(0, o.deadline - o.clock()));
            sched.at(recheck, () -> {
                if (o.state == State.WAITING && o.epoch == epoch && !o.inFlight) {
                    attempt(o);
                }
            });
            return;
        }
        // a queued answer nobody waits for: its place is given up
        send(o, "withdraw", () -> {
            withdraw(o);
            return null;
        }, x -> { });
        if (current && o.state == State.LEFT) {
            idle(o);
        }
    }

    private void giveUp(Owner o, int epoch, String why) {
        if (o.epoch != epoch || o.state != State.WAITING) {
            return;
        }
        trace(o.id + " gives up (" + why + ")");
        if (o.inFlight) {
            o.state = State.LEFT; // the attempt's answer cleans up
            return;
        }
        send(o, "withdraw", () -> {
            withdraw(o);
            return null;
        }, x -> { });
        idle(o);
    }

    private void idle(Owner o) {
        o.state = o.state == State.DONE ? State.DONE : State.IDLE;
        o.epoch++;
        o.inFlight = false;
        o.token = -1;
        if (o.state == State.IDLE) {
            sched.at(rng.nextInt(300) * MS, () -> think(o));
        }
    }

    private void hold(Owner o, long token, long sentAt, long sentAtClient) {
        o.state = State.HOLDING;
        o.epoch++;
        o.token = token;
        o.validUntil = sentAt + LEASE;
        o.believedUntil = sentAtClient + LEASE;
        trace(o.id + " holds #" + token);
        int epoch = o.epoch;
        scheduleRenewal(o, epoch);
        sched.at(rng.nextInt(500) * MS, () -> {
            if (o.epoch == epoch && o.state == State.HOLDING) {
                letGo(o);
            }
        });
    }

    private void scheduleRenewal(Owner o, int epoch) {
        sched.at(LEASE / 3, () -> {
            if (o.epoch != epoch || o.state != State.HOLDING) {
                return;
            }
            if (o.clock() - o.believedUntil >= 0) {
                trace(o.id + " lost #" + o.token + " (its lease ran out on its clock)");
                orphans.add(o.token); // it ends with its lease on the server
                idle(o);
                return;
            }
            if (sched.nanoTime() - pausedUntil[o.client] < 0) {
                scheduleRenewal(o, epoch); // paused: this renewal comes late
                return;
            }
            long token = o.token;
            long sentAt = sched.nanoTime();
            long sentAtClient = o.clock();
            send(o, "renew #" + token, () -> renew(o, token), r -> {
                if (o.epoch != epoch || o.state != State.HOLDING) {
                    return;
                }
                if (Boolean.TRUE.equals(r)) {
                    o.validUntil = sentAt + LEASE;
                    o.believedUntil = sentAtClient + LEASE;
                } else if (Boolean.FALSE.equals(r)) {
                    trace(o.id + " lost #" + token + " (renewal refused)");
                    idle(o);
                }
            });
            scheduleRenewal(o, epoch);
        });
    }

    /** Releases, or hands the exclusive hold to a waiting owner of the same client with no attempt out. */
    private void letGo(Owner o) {
        long token = o.token;
        Owner to = null;
        boolean attemptOut = false;
        for (Owner w : owners) {
            attemptOut |= w.client == o.client && w.inFlight;
        }
        if (!o.shared && (!attemptOut || !handOffGuard)) {
            for (Owner w : owners) {
                if (w.client == o.client && w.state == State.WAITING && !w.shared && !w.inFlight) {
                    to = w;
                    break;
                }
            }
        }
        idle(o);
        if (to == null || rng.nextBoolean()) {
            giveBack(o, token);
            return;
        }
        Owner next = to;
        int epoch = next.epoch;
        long sentAt = sched.nanoTime();
        long sentAtClient = next.clock();
        next.pending++; // the hand-off's answer is the receiver's
        handOffOut[o.client] = true;
        send(o, "hand-off #" + token + " to " + next.id, () -> handOff(o, token, next), r -> {
            next.pending--;
            handOffOut[o.client] = false;
            List<Owner> waiting = new ArrayList<>(deferred);
            deferred.clear();
            for (Owner w : waiting) {
                if (w.client != o.client) {
                    deferred.add(w);
                } else if (w.state == State.WAITING && !w.inFlight && w != next) {
                    attempt(w);
                }
            }
            if (r == DOWN || r == LOST) {
                orphans.add(token);
            }
            if (r instanceof GrantState h) {
                if (next.epoch == epoch && next.state == State.WAITING) {
                    hold(next, h.token(), sentAt, sentAtClient);
                } else {
                    trace(next.id + " got #" + h.token() + " handed over after it left: gives it back");
                    giveBack(next, h.token());
                }
            }
        });
    }

    /** Releases {@code token}; a release that failed leaves the hold to end with its lease. */
    private void giveBack(Owner o, long token) {
        send(o, "release #" + token, () -> release(o, token), r -> {
            if (r == DOWN || r == LOST) {
                orphans.add(token);
            }
        });
    }

    private void stop(Owner o) {
        State was = o.state;
        int epoch = o.epoch;
        if (was == State.WAITING) {
            giveUp(o, epoch, "stop");
        } else if (was == State.HOLDING) {
            long token = o.token;
            idle(o);
            giveBack(o, token);
        }
        if (o.state == State.IDLE) {
            o.state = State.DONE; // a LEFT owner is done once its attempt's answer cleaned up
        }
    }

    // ---------------------------------------------------------------------------------------------- the checks

    private void check() {
        if (failure != null) {
            return;
        }
        long now = sched.nanoTime();
        String exclusive = null;
        Set<String> sharedHolders = new HashSet<>();
        for (GrantState h : arbiter.holds()) {
            if (h.leaseEnd() == GrantState.ENDED) {
                fail("an ended hold is still held: " + h.owner() + "#" + h.token());
            }
            if (h.shared()) {
                sharedHolders.add(h.owner());
            } else if (exclusive != null) {
                fail("two exclusive holds: " + exclusive + " and " + h.owner());
            } else {
                exclusive = h.owner();
            }
            Owner o = owner(h.owner());
            boolean backed = o.state == State.HOLDING && o.token == h.token();
            if (!backed && o.pending == 0 && !orphans.contains(h.token())) {
                fail(h.owner() + "#" + h.token() + " is held at the server but its owner (" + o
                        + ") neither holds it nor has a call on the way");
            }
        }
        if (exclusive != null) {
            sharedHolders.remove(exclusive);
            if (!sharedHolders.isEmpty()) {
                fail("shared holds " + sharedHolders + " beside the exclusive hold of " + exclusive);
            }
        }
        if (!new ArrayList<>(arbiter.queue().keySet()).equals(order)) {
            fail("queue " + arbiter.queue().keySet() + " is not in arrival order " + order);
        }
        for (String q : arbiter.queue().keySet()) {
            Owner o = owner(q);
            if (o.state != State.WAITING && o.state != State.LEFT && o.pending == 0) {
                fail(q + " is still queued after it gave up (" + o + ")");
            }
        }
        // owners' view: at most one believes it holds exclusively, or only readers do
        Owner writer = null;
        int readers = 0;
        for (Owner o : owners) {
            if (o.state != State.HOLDING || o.clock() - o.believedUntil >= 0) {
                continue;
            }
            if (now - o.validUntil >= 0) {
                // only a backward step of its clock may make a client believe past the lease the server keeps
                if (o.client != 0 || now - o.validUntil > backwards) {
                    fail(o.id + " believes in #" + o.token + " past its lease");
                }
                continue;
            }
            if (o.shared) {
                readers++;
            } else if (writer != null) {
                fail(writer.id + " and " + o.id + " both believe they hold exclusively");
            } else {
                writer = o;
            }
        }
        if (writer != null && readers > 0) {
            fail(writer.id + " believes it holds exclusively beside " + readers + " reader(s)");
        }
        if (arbiter.holds().isEmpty() && !arbiter.queue().isEmpty() && !down) {
            if (freeWithWaitersSince < 0) {
                freeWithWaitersSince = now;
            } else if (now - freeWithWaitersSince > RECHECK + OP_TIMEOUT + 6 * maxDelay) {
                fail("the name is free with waiters " + arbiter.queue().keySet() + " since "
                        + (now - freeWithWaitersSince) / MS + " ms");
            }
        } else {
            freeWithWaitersSince = -1;
        }
    }

    private Owner owner(String id) {
        for (Owner o : owners) {
            if (o.id.equals(id)) {
                return o;
            }
        }
        throw new IllegalStateException(id);
    }

    private void fail(String what) {
        if (failure == null) {
            failure = what;
            trace("FAILED: " + what);
        }
    }

    private void trace(String line) {
        trace.add(String.format("%8.3f ms %s", (sched.nanoTime() - 1_000_000_000L) / 1e6, line));
    }

    private String report() {
        return "seed " + seed + " (-Dlatchkey.sim.seed=" + seed + "): " + failure + "\n  " + String.join("\n  ", trace);
    }
}
