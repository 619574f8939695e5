package io.latchkey.etcd.internal;

import io.latchkey.testing.Simulation;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One run of the deterministic simulation of the etcd lock queue's decisions: a simulated etcd (keys under one lock
 * prefix with create revisions, one shared lease per client, atomic transactions, deletions that wake watchers) and
 * owners on a few clients that wait the way {@link EtcdLockAttempts} does: a first attempt puts its key and reads the
 * newest blockers in one transaction (for a reader only the writers' keys); a later one reads its own key and the
 * newest blocker created before it, and queues again if its key went; the key to outlast is
 * {@link EtcdLockAttempts#awaited}'s choice, the recipe's own function. The control flow around it is this run's model
 * of {@code EtcdLockAttempts} and {@code EtcdWaitingKeys} (a put whose answer came too late or never is deleted when it
 * lands or once the failure is known) and of the engine (a queued owner waits for the deletion of the key it outlasts,
 * with a re-check as the fallback; an owner that gives up deletes its key once its attempt has answered).
 *
 * <p>Faults, seeded: delayed requests and replies (each client's in order, as on one gRPC stream); a reply that comes
 * after the attempt's bound (the attempt failed; its put lands later); a broken call whose put may or may not have
 * run; a client's shared lease that expires (its keys go; the client learns it late and takes a new lease); deadlines
 * and cancels.
 *
 * <p>Checked after every event: among owners who hold and whose key exists, at most one writer, or only readers; a
 * holder whose key went learns it within the lease-loss notice; a writer's token is above every earlier live grant's;
 * the oldest key belongs to an owner who waits, holds or cleans up, and is taken within a re-check and the round trips.
 * At the end, after everyone stopped, no key is left.
 */
final class EtcdQueueSimulation extends Simulation {

    static final long RECHECK = 1_000 * MS;
    static final long NOTICE = 200 * MS;
    static final long OP_TIMEOUT = 500 * MS;
    static final String PREFIX = "/l/";


    record Kv(String key, long createRevision, long lease, String owner) {
    }

    final Map<String, Kv> keys = new HashMap<>();
    final Set<Long> liveLeases = new HashSet<>();
    final Map<Long, Long> leaseEndedAt = new HashMap<>();
    long revision;
    long leases;

    final long maxDelay;
    final double late;
    final double broken;
    final boolean readWrite;
    final long runFor;
    final List<Client> clients = new ArrayList<>();
    final List<Owner> owners = new ArrayList<>();
    long maxToken = -1;
    String firstBlockedBy;
    long firstBlockedSince;
    boolean stopping;

    final class Client {
        final int id;
        long lease;
        long lastArrival;
        long lastReply;
        long keySequence;
        final List<Runnable> newLease = new ArrayList<>();

        Client(int id) {
            this.id = id;
            this.lease = ++leases;
            liveLeases.add(lease);
        }
    }

    enum State { IDLE, WAITING, LEFT, HOLDING, DONE }

    /** {@code EtcdWaitingKeys}' states of one key. */
    enum KeyState { PUTTING, LANDED, ABANDONED, DONE }

    final class WaitingKey {
        final String key;
        final long lease;
        KeyState state = KeyState.PUTTING;
        long revision;
        String awaited;

        WaitingKey(String key, long lease) {
            this.key = key;
            this.lease = lease;
        }
    }

    final class Owner {
        final String id;
        final Client client;
        State state = State.IDLE;
        EtcdLockOps.Kind kind;
        int epoch;
        boolean attemptOut;
        boolean woken;
        WaitingKey entry;
        String held;
        long heldLease;
        int cleanups;

        Owner(String id, Client client) {
            this.id = id;
            this.client = client;
        }

        @Override
        public String toString() {
            return id + "/" + state + (attemptOut ? "+attempt" : "") + (cleanups > 0 ? "+cleanup" : "");
        }
    }

    EtcdQueueSimulation(long seed) {
        super(seed);
        maxDelay = (1 + rng.nextInt(30)) * MS;
        late = 0.03 * rng.nextInt(3);
        broken = 0.03 * rng.nextInt(2);
        readWrite = rng.nextBoolean();
        runFor = (2 + rng.nextInt(4)) * 1000 * MS;
        int n = 1 + rng.nextInt(3);
        for (int c = 0; c < n; c++) {
            Client client = new Client(c);
            clients.add(client);
            for (int i = 1 + rng.nextInt(2); i > 0; i--) {
                owners.add(new Owner("c" + c + "o" + owners.size(), client));
            }
        }
        trace(String.format("seed %d: %d owners on %d clients, delay <= %d ms, late %.2f, broken %.2f, %s",
                seed, owners.size(), n, maxDelay / MS, late, broken, readWrite ? "read-write" : "exclusive"));
    }

    @Override
    public String run() {
        for (Owner o : owners) {
            at(rng.nextInt(200) * MS, () -> think(o));
        }
        for (int i = rng.nextInt(3); i > 0; i--) {
            Client c = clients.get(rng.nextInt(clients.size()));
            at(rng.nextInt((int) (runFor / MS)) * MS, () -> expire(c));
        }
        runUntil(runFor);
        if (!failed()) {
            trace("stopping");
            stopping = true;
            for (Owner o : owners) {
                stop(o);
            }
            runUntil(now + 5 * RECHECK);
            for (Kv kv : keys.values()) {
                fail("key " + kv.key() + " of " + kv.owner() + " is left after everyone stopped");
                break;
            }
        }
        return report();
    }

    // ------------------------------------------------------------------------------------------------- server

    private void expire(Client c) {
        long lease = c.lease;
        if (!liveLeases.remove(lease)) {
            return;
        }
        leaseEndedAt.put(lease, now);
        trace("server: lease " + lease + " of client " + c.id + " expires");
        for (Kv kv : new ArrayList<>(keys.values())) {
            if (kv.lease() == lease) {
                delete(kv.key());
            }
        }
        long notice = Math.max(c.lastReply, now + rng.nextInt((int) (NOTICE / MS)) * MS);
        c.lastReply = notice;
        at(notice - now, () -> {
            c.lease = ++leases;
            liveLeases.add(c.lease);
            trace("client " + c.id + " learns its lease expired: new lease " + c.lease);
            for (Owner o : owners) {
                if (o.client == c && o.state == State.HOLDING && o.heldLease == lease) {
                    trace(o.id + " lost its hold (lease expired)");
                    idle(o);
                }
            }
            List<Runnable> then = new ArrayList<>(c.newLease);
            c.newLease.clear();
            then.forEach(Runnable::run);
        });
    }

    private boolean delete(String key) {
        if (keys.remove(key) == null) {
            return false;
        }
        revision++;
        for (Owner o : owners) {
            WaitingKey k = o.entry;
            // the name's watch: wakes a waiter whose awaited key went (every deletion while its read is out)
            if (o.state == State.WAITING && k != null && (k.awaited == null || k.awaited.equals(key))) {
                int epoch = o.epoch;
                toClient(o.client, () -> wake(o, epoch));
            }
        }
        return true;
    }

    /** The newest keys of {@code scope} created before {@code maxCreate}, newest first, at most {@code limit}. */
    private List<Kv> newest(String scope, long maxCreate, int limit) {
        List<Kv> found = new ArrayList<>();
        for (Kv kv : keys.values()) {
            if (kv.key().startsWith(scope) && kv.createRevision() <= maxCreate) {
                found.add(kv);
            }
        }
        found.sort(Comparator.comparingLong(Kv::createRevision).reversed());
        return found.subList(0, Math.min(limit, found.size()));
    }

    private static String blockers(EtcdLockOps.Kind kind) {
        return kind == EtcdLockOps.Kind.READ ? PREFIX + EtcdLockOps.Kind.WRITE.marker : PREFIX;
    }

    // ------------------------------------------------------------------------------------------------ network

    private long delay() {
        return rng.nextInt((int) maxDelay + 1);
    }

    static final Object BROKEN = "broken";
    static final Object LEASE_NOT_FOUND = "lease not found";

    /**
     * One call of {@code c}: in order behind its earlier ones; its reply comes late (after the attempt's bound, when
     * {@code late} strikes), or the call breaks (before or after it ran).
     */
    private void send(Client c, Supplier<Object> atServer, Consumer<Object> reply) {
        long arrival = Math.max(c.lastArrival, now + delay());
        c.lastArrival = arrival;
        at(arrival - now, () -> {
            boolean breaks = rng.nextDouble() < broken;
            Object r = breaks && rng.nextBoolean() ? BROKEN : atServer.get();
            Object answer = breaks ? BROKEN : r;
            if (rng.nextDouble() < late) {
                at(OP_TIMEOUT + delay(), () -> reply.accept(answer));
            } else {
                toClient(c, () -> reply.accept(answer));
            }
        });
    }

    private void toClient(Client c, Runnable event) {
        long arrival = Math.max(c.lastReply, now + delay());
        c.lastReply = arrival;
        at(arrival - now, event);
    }

    // ------------------------------------------------------------------------------------- the recipe's flow

    private void think(Owner o) {
        if (o.state != State.IDLE || stopping) {
            return;
        }
        o.state = State.WAITING;
        o.epoch++;
        o.entry = null;
        o.kind = !readWrite ? EtcdLockOps.Kind.EXCLUSIVE
                : rng.nextBoolean() ? EtcdLockOps.Kind.READ : EtcdLockOps.Kind.WRITE;
        int epoch = o.epoch;
        if (rng.nextInt(3) == 0) {
            at((1 + rng.nextInt(1500)) * MS, () -> giveUp(o, epoch));
        }
        trace(o.id + " acquires (" + o.kind + ")");
        attempt(o);
    }

    /** One attempt ({@code EtcdLockAttempts#attempt}): a check of a landed entry, else a new key. */
    private void attempt(Owner o) {
        o.attemptOut = true;
        o.woken = false;
        if (o.entry != null && o.entry.state == KeyState.LANDED) {
            check(o, o.entry);
        } else {
            put(o, true);
        }
    }

    /**
     * Runs {@code then} with {@code reply} if it came within the attempt's bound; otherwise fails the attempt at the
     * bound (and {@code late} still sees the reply when it comes).
     */
    private Consumer<Object> bounded(Owner o, Consumer<Object> then, Consumer<Object> lateReply) {
        boolean[] done = {false};
        at(OP_TIMEOUT, () -> {
            if (!done[0]) {
                done[0] = true;
                then.accept(BROKEN);
            }
        });
        return r -> {
            lateReply.accept(r);
            if (!done[0]) {
                done[0] = true;
                then.accept(r);
            }
        };
    }

    private void put(Owner o, boolean retryOnLostLease) {
        Client c = o.client;
        String key = PREFIX + o.kind.marker + "c" + c.id + "-" + Long.toString(++c.keySequence, 36);
        long lease = c.lease;
        WaitingKey k = new WaitingKey(key, lease);
        o.entry = k;
        EtcdLockOps.Kind kind = o.kind;
        send(c, () -> {
            if (!liveLeases.contains(lease)) {
                return LEASE_NOT_FOUND;
            }
            long rev = ++revision;
            keys.put(key, new Kv(key, rev, lease, o.id));
            Kv before = null;
            for (Kv kv : newest(blockers(kind), rev, 2)) {
                if (!kv.key().equals(key)) {
                    before = kv;
                    break;
                }
            }
            return new Object[] {rev, before, revision};
        }, bounded(o, r -> {
            if (r == BROKEN || r == LEASE_NOT_FOUND) {
                abandon(o, k);
                if (r == LEASE_NOT_FOUND && retryOnLostLease) {
                    whenNewLease(c, lease, () -> put(o, false));
                    return;
                }
                failed(o, "put " + r);
                return;
            }
            Object[] a = (Object[]) r;
            landed(o, k, (Long) a[0]);
            Kv awaited = EtcdLockAttempts.awaited(kind, (Kv) a[1], null);
            answered(o, k, awaited, (Long) a[0]);
        }, r -> {
            // EtcdWaitingKeys: a put that lands after its attempt gave up is deleted; a failed one, in case it ran
            if (r instanceof Object[] a) {
                landed(o, k, (Long) a[0]);
            } else if (r == BROKEN) {
                k.state = KeyState.DONE;
                deleteKey(o, key);
            }
        }));
    }

    private void landed(Owner o, WaitingKey k, long rev) {
        k.revision = rev;
        if (k.state == KeyState.PUTTING) {
            k.state = KeyState.LANDED;
        } else if (k.state == KeyState.ABANDONED) {
            k.state = KeyState.DONE;
            deleteKey(o, k.key);
        }
    }

    private void abandon(Owner o, WaitingKey k) {
        if (k.state == KeyState.PUTTING) {
            k.state = KeyState.ABANDONED;
        } else if (k.state == KeyState.LANDED) {
            k.state = KeyState.DONE;
            deleteKey(o, k.key);
        }
    }

    private void whenNewLease(Client c, long lease, Runnable then) {
        if (c.lease != lease) {
            at(0, then);
        } else {
            c.newLease.add(then);
        }
    }

    private void check(Owner o, WaitingKey k) {
        k.awaited = null; // while the read is out, every deletion wakes
        EtcdLockOps.Kind kind = o.kind;
        send(o.client, () -> {
            Kv mine = keys.get(k.key);
            List<Kv> before = newest(blockers(kind), k.revision - 1, 1);
            return new Object[] {mine, before.isEmpty() ? null : before.get(0), revision};
        }, bounded(o, r -> {
            if (r == BROKEN) {
                abandon(o, k);
                failed(o, "check broken");
                return;
            }
            Object[] a = (Object[]) r;
            Kv mine = (Kv) a[0];
            if (mine == null || mine.createRevision() != k.revision) {
                trace(o.id + "'s key " + k.key + " is gone: queues again");
                k.state = KeyState.DONE;
                put(o, true);
                return;
            }
            answered(o, k, EtcdLockAttempts.awaited(kind, (Kv) a[1], null), (Long) a[2]);
        }, r -> { }));
    }

    private void failed(Owner o, String why) {
        o.attemptOut = false;
        trace(o.id + "'s attempt failed (" + why + ")");
        if (o.state == State.WAITING || o.state == State.LEFT) {
            o.entry = null;
            idle(o);
        }
    }

    private void wake(Owner o, int epoch) {
        if (o.epoch != epoch || o.state != State.WAITING) {
            return;
        }
        if (o.attemptOut) {
            o.woken = true;
        } else {
            attempt(o);
        }
    }

    /** The attempt's answer: {@code awaited == null}: granted with {@code token}; else queued behind it. */
    private void answered(Owner o, WaitingKey k, Kv awaited, long token) {
        o.attemptOut = false;
        if (o.state == State.LEFT || o.state == State.DONE) {
            trace(o.id + "'s attempt answered after it left: deletes " + k.key);
            abandon(o, k);
            o.entry = null;
            if (o.state == State.LEFT) {
                idle(o);
            }
            return;
        }
        if (awaited != null) {
            k.awaited = awaited.key();
            int epoch = o.epoch;
            at(RECHECK, () -> wake(o, epoch));
            if (o.woken) {
                attempt(o);
            }
            return;
        }
        k.state = KeyState.DONE; // granted: the owner's hold from now on
        o.entry = null;
        o.state = State.HOLDING;
        o.held = k.key;
        o.heldLease = k.lease;
        trace(o.id + " holds " + k.key + " token " + token);
        if (keys.containsKey(k.key)) {
            if (o.kind != EtcdLockOps.Kind.READ && token <= maxToken) {
                fail(o.id + "'s token " + token + " is not above an earlier grant's " + maxToken);
            }
            maxToken = Math.max(maxToken, token);
        }
        int epoch = o.epoch;
        at(rng.nextInt(400) * MS, () -> {
            if (o.epoch == epoch && o.state == State.HOLDING) {
                trace(o.id + " releases " + o.held);
                deleteKey(o, o.held);
                idle(o);
            }
        });
    }

    private void deleteKey(Owner o, String key) {
        o.cleanups++;
        send(o.client, () -> delete(key), r -> {
            o.cleanups--;
            if (r == BROKEN) {
                deleteKey(o, key); // retried until etcd answers
            }
        });
    }

    private void giveUp(Owner o, int epoch) {
        if (o.epoch != epoch || o.state != State.WAITING) {
            return;
        }
        trace(o.id + " gives up");
        if (o.attemptOut) {
            o.state = State.LEFT;
            return;
        }
        if (o.entry != null) {
            abandon(o, o.entry);
        }
        o.entry = null;
        idle(o);
    }

    private void idle(Owner o) {
        o.state = o.state == State.DONE ? State.DONE : State.IDLE;
        o.epoch++;
        o.held = null;
        if (o.state == State.IDLE) {
            at(rng.nextInt(300) * MS, () -> think(o));
        }
    }

    private void stop(Owner o) {
        if (o.state == State.WAITING) {
            giveUp(o, o.epoch);
        } else if (o.state == State.HOLDING) {
            deleteKey(o, o.held);
            idle(o);
        }
        if (o.state == State.IDLE) {
            o.state = State.DONE;
        }
    }

    // ------------------------------------------------------------------------------------------------- checks

    @Override
    protected void check() {
        if (failed()) {
            return;
        }
        Owner writer = null;
        int readers = 0;
        for (Owner o : owners) {
            if (o.state != State.HOLDING) {
                continue;
            }
            if (!keys.containsKey(o.held)) {
                Long ended = leaseEndedAt.get(o.heldLease);
                if (ended == null || now - ended > NOTICE + maxDelay) {
                    fail(o.id + " believes it holds " + o.held + ", which is gone");
                }
                continue;
            }
            if (o.kind == EtcdLockOps.Kind.READ) {
                readers++;
            } else if (writer != null) {
                fail(writer.id + " and " + o.id + " both hold exclusively");
            } else {
                writer = o;
            }
        }
        if (writer != null && readers > 0) {
            fail(writer.id + " holds exclusively beside " + readers + " reader(s)");
        }
        List<Kv> oldest = newest(PREFIX, Long.MAX_VALUE, Integer.MAX_VALUE);
        if (oldest.isEmpty()) {
            firstBlockedBy = null;
            return;
        }
        Kv first = oldest.get(oldest.size() - 1);
        Owner o = owner(first.owner());
        if (o.state == State.HOLDING && first.key().equals(o.held)) {
            firstBlockedBy = null;
            return;
        }
        if (!first.key().equals(firstBlockedBy)) {
            firstBlockedBy = first.key();
            firstBlockedSince = now;
        } else if (now - firstBlockedSince > RECHECK + NOTICE + 2 * OP_TIMEOUT + 20 * maxDelay) {
            fail("the oldest key " + first.key() + " of " + o + " has not been taken or deleted for "
                    + (now - firstBlockedSince) / MS + " ms");
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
}
