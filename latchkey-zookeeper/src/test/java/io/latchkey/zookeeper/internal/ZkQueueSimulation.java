package io.latchkey.zookeeper.internal;

import io.latchkey.testing.Simulation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * One run of the deterministic simulation of the ZooKeeper lock queue's decisions: a simulated ZooKeeper (ephemeral
 * sequential children of one lock path, sessions, zxids, the parent's pzxid, one-shot watches) and owners on a few
 * clients that take places in line the way {@link ZkLockAttempt} does (a protected create pipelined with a listing;
 * after a lost create answer, find the node by its protection id and adopt it only if the current session owns it,
 * else delete it; list, sort ({@link LockNodes#sorted}), find our node, and either hold, queue again when our node is
 * gone, or watch the node {@link ZkLockAttempt#mustOutlast} names, listing again if it went before the watch was
 * armed). The decisions are the recipe's own functions; the control flow around them is this run's model of
 * {@code ZkLockAttempt} and of the engine (a queued owner waits for the watch, with a re-check as the fallback; an
 * owner that gives up deletes its node once its attempt has answered).
 *
 * <p>Faults, seeded: delayed requests (in order per session, as ZooKeeper keeps them) and replies; a connection loss
 * that loses a reply (the request ran) or the request; a session that expires (its nodes go, the client learns it
 * late and gets a new session); a predecessor deleted between the listing and the watch; deadlines and cancels.
 *
 * <p>Checked after every event: among owners who hold and whose node exists, at most one writer, or only readers; a
 * holder whose node went learns it within the session-expiry notice; a writer's fencing token is above every earlier
 * grant's, and writers are served in node order; the first node in line belongs to an owner who waits, holds or still
 * cleans up (no stray node blocks the queue), and it is taken within a re-check and the round trips. At the end,
 * after everyone stopped, no node is left.
 */
final class ZkQueueSimulation extends Simulation {

    static final long RECHECK = 1_000 * MS;
    static final long NOTICE = 200 * MS;


    // ---- the server
    record Node(String name, long session, String owner, long czxid) {
    }

    final Map<String, Node> children = new HashMap<>();
    final Set<Long> liveSessions = new HashSet<>();
    final Map<String, List<Runnable>> watches = new HashMap<>();
    final Map<Long, Long> expiredAt = new HashMap<>();
    long zxid;
    long pzxid;
    long sequence;
    long sessions;

    // ---- the clients
    final long maxDelay;
    final double loseReply;
    final double loseRequest;
    final boolean readWrite;
    final long runFor;
    final List<Client> clients = new ArrayList<>();
    final List<Owner> owners = new ArrayList<>();
    long maxToken = -1;
    long lastWriterSequence = -1;
    long firstBlockedSince = -1;
    String firstBlockedBy;
    boolean stopping;

    final class Client {
        final int id;
        long session;
        long lastArrival;
        /** Replies and watch events reach the client in the server's order. */
        long lastReply;
        /** Callbacks waiting for the client's next session after an expiry. */
        final List<Runnable> reconnected = new ArrayList<>();

        Client(int id) {
            this.id = id;
            this.session = newSession();
        }
    }

    enum State { IDLE, WAITING, LEFT, HOLDING, DONE }

    final class Owner {
        final String id;
        final Client client;
        State state = State.IDLE;
        ZkLockOps.Kind kind;
        int epoch;
        /** An attempt is out (its answer not yet given to the engine). */
        boolean attemptOut;
        /** A wake-up came while the attempt was out. */
        boolean woken;
        /** The attempt's own epoch: replies of a superseded request change nothing. */
        int step;
        String protectionId;
        long createSession;
        boolean strayPossible;
        /** Our node, once known ours: name and session. */
        String node;
        long nodeSession;
        long nodeCzxid;
        long token;
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

    ZkQueueSimulation(long seed) {
        super(seed);
        maxDelay = (1 + rng.nextInt(30)) * MS;
        loseReply = 0.03 * rng.nextInt(3);
        loseRequest = 0.03 * rng.nextInt(2);
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
        trace(String.format("seed %d: %d owners on %d clients, delay <= %d ms, lose replies %.2f, requests %.2f, %s",
                seed, owners.size(), n, maxDelay / MS, loseReply, loseRequest, readWrite ? "read-write" : "exclusive"));
    }

    private long newSession() {
        long s = ++sessions;
        liveSessions.add(s);
        return s;
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
            for (Node n : children.values()) {
                fail("node " + n.name() + " of " + n.owner() + " is left after everyone stopped");
                break;
            }
        }
        return report();
    }

    // ------------------------------------------------------------------------------------------------- server

    private void expire(Client c) {
        long s = c.session;
        if (!liveSessions.remove(s)) {
            return;
        }
        expiredAt.put(s, now);
        trace("server: session " + s + " of client " + c.id + " expires");
        for (Node n : new ArrayList<>(children.values())) {
            if (n.session() == s) {
                delete(n.name());
            }
        }
        // the client learns it after every reply the server sent before (ZooKeeper's order)
        long notice = Math.max(c.lastReply, now + rng.nextInt((int) (NOTICE / MS)) * MS);
        c.lastReply = notice;
        at(notice - now, () -> {
            c.session = newSession();
            trace("client " + c.id + " learns its session expired: new session " + c.session);
            for (Owner o : owners) {
                if (o.client == c && o.state == State.HOLDING && o.nodeSession == s) {
                    trace(o.id + " lost its hold (session expired)");
                    idle(o);
                }
            }
            List<Runnable> then = new ArrayList<>(c.reconnected);
            c.reconnected.clear();
            then.forEach(Runnable::run);
        });
    }

    private boolean delete(String name) {
        if (children.remove(name) == null) {
            return false;
        }
        pzxid = ++zxid;
        List<Runnable> fired = watches.remove(name);
        if (fired != null) {
            fired.forEach(Runnable::run);
        }
        return true;
    }

    private List<String> list() {
        List<String> names = new ArrayList<>(children.keySet());
        Collections.sort(names); // a deterministic order, then shuffled: the recipe must sort
        Collections.shuffle(names, rng);
        return names;
    }

    // ------------------------------------------------------------------------------------------------ network

    private long delay() {
        return rng.nextInt((int) maxDelay + 1);
    }

    static final Object EXPIRED = "SESSIONEXPIRED";
    static final Object LOSS = "CONNECTIONLOSS";

    /**
     * A request of {@code c}'s session: in order behind its earlier ones; on a session the server ended it answers
     * expired; a connection loss may lose the request or only its reply (the request ran).
     */
    private void send(Client c, Supplier<Object> atServer, Consumer<Object> reply) {
        long session = c.session;
        long arrival = Math.max(c.lastArrival, now + delay());
        c.lastArrival = arrival;
        at(arrival - now, () -> {
            if (!liveSessions.contains(session)) {
                toClient(c, () -> reply.accept(EXPIRED));
                return;
            }
            if (rng.nextDouble() < loseRequest) {
                toClient(c, () -> reply.accept(LOSS));
                return;
            }
            Object r = atServer.get();
            boolean lost = rng.nextDouble() < loseReply;
            toClient(c, () -> reply.accept(lost ? LOSS : r));
        });
    }

    /** A reply or watch event on its way to {@code c}: late, in the server's order. */
    private void toClient(Client c, Runnable event) {
        long arrival = Math.max(c.lastReply, now + delay());
        c.lastReply = arrival;
        at(arrival - now, event);
    }

    /** After a connection loss the client reconnects (same session) at once; after an expiry, on its next one. */
    private void afterReconnect(Owner o, Runnable then) {
        if (liveSessions.contains(o.client.session)) {
            at(delay(), then);
        } else {
            o.client.reconnected.add(then);
        }
    }

    // ------------------------------------------------------------------------------------- the recipe's flow

    private void think(Owner o) {
        if (o.state != State.IDLE || stopping) {
            return;
        }
        o.state = State.WAITING;
        o.epoch++;
        o.node = null;
        o.kind = !readWrite ? ZkLockOps.Kind.EXCLUSIVE
                : rng.nextBoolean() ? ZkLockOps.Kind.READ : ZkLockOps.Kind.WRITE;
        int epoch = o.epoch;
        if (rng.nextInt(3) == 0) {
            at((1 + rng.nextInt(1500)) * MS, () -> giveUp(o, epoch));
        }
        trace(o.id + " acquires (" + o.kind + ")");
        start(o);
    }

    /** One attempt ({@code ZkLockAttempt#start}): with our node of the current session, list again; else create. */
    private void start(Owner o) {
        o.attemptOut = true;
        o.woken = false;
        if (o.node != null && o.nodeSession == o.client.session) {
            relist(o);
        } else {
            if (o.node != null) {
                trace(o.id + "'s node " + o.node + " went with its session: queues again");
            }
            create(o);
        }
    }

    private void create(Owner o) {
        int step = ++o.step;
        Client c = o.client;
        String uuid = "u" + seed + "-" + o.id + "-" + step;
        o.protectionId = uuid;
        o.node = null;
        o.createSession = c.session;
        String prefix = LockNodes.protectedName(uuid, o.kind.prefix);
        send(c, () -> {
            String name = prefix + String.format("%010d", sequence++);
            long session = c.session;
            Node n = new Node(name, session, o.id, ++zxid);
            pzxid = zxid;
            children.put(name, n);
            return n;
        }, r -> {
            if (step != o.step) {
                return;
            }
            if (r instanceof Node n) {
                o.node = n.name();
                o.nodeSession = n.session();
                o.nodeCzxid = n.czxid();
            } else if (r == LOSS) {
                o.strayPossible = true;
                afterReconnect(o, () -> recoverProtected(o));
            } else {
                afterReconnect(o, () -> create(o));
            }
        });
        // pipelined: the server answers in order, so this listing already has our node
        send(c, () -> new Object[] {list(), pzxid}, r -> {
            if (step == o.step && o.node != null) {
                listed(o, r);
            }
        });
    }

    private void recoverProtected(Owner o) {
        int step = ++o.step;
        Client c = o.client;
        String uuid = o.protectionId;
        send(c, this::list, r -> {
            if (step != o.step) {
                return;
            }
            if (!(r instanceof List<?> l)) {
                afterReconnect(o, () -> recoverProtected(o));
                return;
            }
            @SuppressWarnings("unchecked")
            String found = LockNodes.findProtected((List<String>) l, uuid);
            if (found == null) {
                o.strayPossible = false;
                create(o);
                return;
            }
            send(c, () -> children.get(found) == null ? "NONODE" : children.get(found), r2 -> {
                if (step != o.step) {
                    return;
                }
                if (r2 == LOSS || r2 == EXPIRED) {
                    afterReconnect(o, () -> recoverProtected(o));
                    return;
                }
                o.strayPossible = false;
                if (r2 instanceof Node n && n.session() == c.session) {
                    o.node = n.name();
                    o.nodeSession = n.session();
                    o.nodeCzxid = n.czxid();
                    trace(o.id + " adopts " + n.name() + " after a lost create reply");
                    relist(o);
                } else {
                    if (r2 instanceof Node n) {
                        trace(o.id + " deletes " + n.name() + ", created by its ended session " + n.session());
                        deleteNode(o, n.name());
                    }
                    create(o);
                }
            });
        });
    }

    private void relist(Owner o) {
        int step = ++o.step;
        send(o.client, () -> new Object[] {list(), pzxid}, r -> {
            if (step == o.step) {
                listed(o, r);
            }
        });
    }

    private void listed(Owner o, Object r) {
        if (r == EXPIRED) {
            afterReconnect(o, () -> create(o));
        } else if (r == LOSS) {
            afterReconnect(o, () -> relist(o));
        } else {
            Object[] answer = (Object[]) r;
            @SuppressWarnings("unchecked")
            List<String> sorted = LockNodes.sorted((List<String>) answer[0]);
            int index = sorted.indexOf(o.node);
            if (index < 0) {
                trace(o.id + "'s node " + o.node + " is gone: queues again");
                create(o);
                return;
            }
            String blocker = ZkLockAttempt.mustOutlast(o.kind, sorted, index, n -> false);
            if (blocker == null) {
                answered(o, Math.max(o.nodeCzxid, (Long) answer[1]));
            } else {
                watch(o, blocker);
            }
        }
    }

    private void watch(Owner o, String blocker) {
        int step = ++o.step;
        int epoch = o.epoch;
        send(o.client, () -> {
            if (!children.containsKey(blocker)) {
                return "NONODE";
            }
            watches.computeIfAbsent(blocker, k -> new ArrayList<>()).add(() -> toClient(o.client, () -> wake(o, epoch)));
            return "OK";
        }, r -> {
            if (step != o.step) {
                return;
            }
            if ("OK".equals(r)) {
                answered(o, -1); // queued: the watch wakes the engine
            } else if ("NONODE".equals(r)) {
                trace(o.id + ": " + blocker + " went before the watch: lists again");
                relist(o); // the node ahead went between the listing and the watch
            } else if (r == EXPIRED) {
                afterReconnect(o, () -> create(o));
            } else {
                afterReconnect(o, () -> relist(o));
            }
        });
        int epochNow = o.epoch;
        at(RECHECK, () -> wake(o, epochNow)); // the engine's re-check, should the watch be lost with its session
    }

    private void wake(Owner o, int epoch) {
        if (o.epoch != epoch || o.state != State.WAITING) {
            return;
        }
        if (o.attemptOut) {
            o.woken = true; // the engine looks again once the attempt answers
        } else {
            start(o);
        }
    }

    /** The attempt's answer reaches the engine: granted ({@code token >= 0}) or queued. */
    private void answered(Owner o, long token) {
        o.attemptOut = false;
        if (o.state == State.LEFT || o.state == State.DONE) {
            trace(o.id + "'s attempt answered after it left: deletes " + o.node);
            deleteNode(o, o.node);
            o.node = null;
            if (o.state == State.LEFT) {
                idle(o);
            }
            return;
        }
        if (token < 0) {
            if (o.woken) {
                start(o);
            }
            return;
        }
        o.state = State.HOLDING;
        o.token = token;
        boolean writer = o.kind != ZkLockOps.Kind.READ;
        trace(o.id + " holds " + o.node + " token " + token);
        // a grant read before its session expired may reach the client after that: the node is gone, and a fenced
        // store refuses its token; the client must learn it in time (checked), its token and order do not count
        if (writer && children.containsKey(o.node)) {
            if (token <= maxToken) {
                fail(o.id + "'s token " + token + " is not above an earlier grant's " + maxToken);
            }
            long s = LockNodes.sequenceNumber(o.node);
            if (s <= lastWriterSequence) {
                fail(o.id + " served out of node order: " + s + " after " + lastWriterSequence);
            }
            lastWriterSequence = s;
        }
        if (children.containsKey(o.node)) {
            maxToken = Math.max(maxToken, token);
        }
        int epoch = o.epoch;
        at(rng.nextInt(400) * MS, () -> {
            if (o.epoch == epoch && o.state == State.HOLDING) {
                trace(o.id + " releases " + o.node);
                deleteNode(o, o.node);
                idle(o);
            }
        });
    }

    private void deleteNode(Owner o, String name) {
        if (name == null) {
            return;
        }
        o.cleanups++;
        send(o.client, () -> delete(name), r -> {
            o.cleanups--;
            if (r == LOSS) {
                deleteNode(o, name); // a delete is retried until the server answers
            }
        });
    }

    private void giveUp(Owner o, int epoch) {
        if (o.epoch != epoch || o.state != State.WAITING) {
            return;
        }
        trace(o.id + " gives up");
        if (o.attemptOut) {
            o.state = State.LEFT; // the attempt's answer cleans up
            return;
        }
        deleteNode(o, o.node); // the engine withdraws the queued entry
        o.node = null;
        idle(o);
    }

    private void idle(Owner o) {
        o.state = o.state == State.DONE ? State.DONE : State.IDLE;
        o.epoch++;
        o.node = null;
        if (o.state == State.IDLE) {
            at(rng.nextInt(300) * MS, () -> think(o));
        }
    }

    private void stop(Owner o) {
        if (o.state == State.WAITING) {
            giveUp(o, o.epoch);
        } else if (o.state == State.HOLDING) {
            deleteNode(o, o.node);
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
            Node n = children.get(o.node);
            if (n == null) {
                Long ended = expiredAt.get(o.nodeSession);
                if (ended == null || now - ended > NOTICE + maxDelay) {
                    fail(o.id + " believes it holds " + o.node + ", which is gone");
                }
                continue;
            }
            if (o.kind == ZkLockOps.Kind.READ) {
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
        List<String> sorted = LockNodes.sorted(new ArrayList<>(children.keySet()));
        if (sorted.isEmpty()) {
            firstBlockedBy = null;
            return;
        }
        Node first = children.get(sorted.get(0));
        Owner o = owner(first.owner());
        boolean holdsIt = o.state == State.HOLDING && first.name().equals(o.node);
        if (holdsIt) {
            firstBlockedBy = null;
            return;
        }
        if (!first.name().equals(firstBlockedBy)) {
            firstBlockedBy = first.name();
            firstBlockedSince = now;
        } else if (now - firstBlockedSince > RECHECK + NOTICE + 20 * maxDelay) {
            fail("the first node " + first.name() + " of " + o + " has not been taken or deleted for "
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
