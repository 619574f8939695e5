package io.latchkey.core.internal;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One run of the deterministic simulation: a few clients, each a real {@link LockEngine} on the {@link SimScheduler},
 * several owners per client (the simulation's "threads") that lock (plain, fair, either half of a read-write lock),
 * wait with and without deadlines, give up (cancellation, the interrupt's path), hold across renewals, take and give
 * permits, lease permits and wait on a latch, all through the engine's one waiting machine in the same run, against
 * a {@link SimServer} behind a faulty {@link SimBackend} network. After every event the properties are checked; the
 * first broken one fails the run with the seed and the last events.
 *
 * <p>Everything runs on the calling thread: a run is a function of its seed.
 */
final class EngineSimulation {

    static final String LOCK = "L";
    static final String FAIR = "F";
    static final String SEM = "S";
    static final String LATCH = "C";
    static final String LEASED = "P";
    /** A read-write lock's name on the server; its halves as the owners hold them. */
    static final String RW = "RW";
    static final String RW_READ = "RW.read";
    static final String RW_WRITE = "RW.write";
    static final int PERMITS = 3;
    static final long MS = 1_000_000L;

    final long seed;
    final Random rng;
    final SimScheduler sched = new SimScheduler();
    final SimServer server = new SimServer(sched);
    final List<String> trace = new TraceBuffer(Integer.getInteger("latchkey.sim.trace", 80));
    final List<Client> clients = new ArrayList<>();
    final List<Actor> actors = new ArrayList<>();
    final SimBackend.Faults faults;
    final ClientOptions options;
    final long remoteTimeout;
    final long runFor;
    final boolean closeEarly;
    boolean stopping;
    /** Whether the network or server misbehave in this run; without faults no lease may run out. */
    final boolean faulty;
    /** Whether the lock ops answer single attempts (the engine waits) or wait themselves. */
    final boolean singleAttempts;
    /** Clients were closed: their holds are no longer renewed and run out on the server. */
    boolean closed;
    String failure;
    /** Token of the newest hold any owner saw valid, per lock name. */
    final Map<String, Long> lastValidToken = new HashMap<>();
    final Map<String, String> lastValidOwner = new HashMap<>();
    /** The fencing counter at the last server restart: holds with tokens up to it may overlap newer ones. */
    long tokensAtRestart;
    long lastRestartAt = Long.MIN_VALUE;
    long calls;
    /** Grants the server made, by name#token, and whether an owner ever saw them; for the give-back check. */
    final Map<String, String> grants = new HashMap<>();
    final Map<String, Long> freeWithWaitersSince = new HashMap<>();
    /** Permits whose release failed to their owner (only a {@link SimFaultModel}'s fault may fail one). */
    int permitsReleaseFailed;
    /** The fault that strikes one client beyond the network's ({@link SimFaultModel#NONE} for none). */
    final SimFaultModel model;

    EngineSimulation(long seed) {
        this(seed, SimFaultModel.NONE);
    }

    EngineSimulation(long seed, SimFaultModel model) {
        this.seed = seed;
        this.model = model;
        this.rng = new Random(seed);
        boolean network = rng.nextInt(3) != 0;
        faulty = network || model.endsLeases();
        Random inline = new Random(seed ^ 0x5DEECE66DL);
        sched.inlineDue = inline::nextBoolean;
        faults = network
                ? new SimBackend.Faults((1 + rng.nextInt(40)) * MS, rng.nextBoolean(), 0.02 * rng.nextInt(3),
                        0.3 * rng.nextInt(3), 0.05 * rng.nextInt(2))
                : new SimBackend.Faults((1 + rng.nextInt(20)) * MS, rng.nextBoolean(), 0, 0, 0);
        options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(3))
                .operationTimeout(Duration.ofSeconds(1)).build();
        runFor = (2 + rng.nextInt(4)) * 1000 * MS;
        singleAttempts = Boolean.parseBoolean(System.getProperty("latchkey.sim.single",
                Boolean.toString(rng.nextBoolean())));
        closeEarly = rng.nextInt(4) == 0;
        int clientCount = 1 + rng.nextInt(3);
        server.permits.put(SEM, PERMITS);
        server.leaseCapacity.put(LEASED, 2);
        server.latches.put(LATCH, (long) (1 + rng.nextInt(4)));
        server.grantListener = (n, o, t) -> {
            grants.put(n + "#" + t, o);
            freeWithWaitersSince.remove(n);
        };
        server.taken = freeWithWaitersSince::remove;
        // a lost answer leaves its waiter (perhaps at the head of a fair queue) stuck until the operation timeout
        server.answerLost = freeWithWaitersSince::clear;
        server.expiryListener = (n, o, t) -> {
            trace(String.format("server: lease of %s#%d (%s) ran out", n, t, o));
            if (!faulty && !closed) {
                // without faults every grant is released by its owner, or given back when nobody waits for it
                fail(String.format("%s#%d of %s was left to run out on the server", n, t, o));
            }
        };
        for (int c = 0; c < clientCount; c++) {
            Client client = new Client(c);
            clients.add(client);
            int owners = 1 + rng.nextInt(4);
            for (int a = 0; a < owners; a++) {
                actors.add(new Actor(client, a, new Random(seed * 1_000_003L + c * 101 + a)));
            }
        }
        remoteTimeout = clients.get(0).engine.remoteTimeoutNanos();
    }

    /** Runs the seed; returns {@code null} if every property held, else the failure report. */
    String run() {
        model.start(this);
        trace(String.format("seed %d: %d clients, %d owners, %s, faults %s, run %d ms%s%s", seed, clients.size(),
                actors.size(), singleAttempts ? "single attempts" : "waiting acquires", faults, runFor / MS,
                closeEarly ? ", clients closed while busy" : "", model.describe()));
        for (Actor a : actors) {
            sched.at(a.rng.nextInt(20) * MS, a::next);
        }
        if (faults.loseAnswer() > 0 && rng.nextBoolean()) {
            long at = (long) (rng.nextDouble() * runFor);
            sched.at(at, () -> {
                trace("server restarts");
                tokensAtRestart = server.tokens;
                lastRestartAt = sched.nanoTime();
                server.restart();
            });
        }
        sched.at(50 * MS, this::monitor);
        sched.at(50 * MS, this::watchOrphans);
        sched.runUntil(sched.nanoTime() + runFor, this::check);
        stopping = true;
        if (failure != null) {
            return report();
        }
        // the latch opens, so that owners waiting on it without a deadline finish
        for (long i = server.getCount(LATCH); i > 0; i--) {
            if (!clients.get(0).engine.isClosed()) {
                clients.get(0).latch.countDownAsync();
            }
        }
        if (closeEarly) {
            trace("closing every client while owners are busy");
            watchingOrphans = false;
            closed = true;
            for (Client c : clients) {
                c.engine.closeAsync();
            }
            sched.runUntil(sched.nanoTime() + remoteTimeout + 100 * MS, this::check);
            if (!faulty && !server.heldLocks().isEmpty()) {
                fail("locks still held on the server after every client closed: " + server.heldLocks());
            }
            for (Actor a : actors) {
                if (a.pending != null) {
                    fail(a + " still waits after close: " + a.pending);
                }
            }
            // a thread that held a lock keeps its lost hold until it unlocks (and learns of the loss): let them
            sched.runUntil(sched.nanoTime() + 8_000 * MS, this::check);
            for (Client c : clients) {
                if (c.engine.localStateCount() != 0) {
                    fail("client " + c.id + " keeps local state after close: " + describeLocalState(c.engine));
                }
            }
            return failure == null ? null : report();
        }
        // drain: owners finish what they do and start nothing new; every wait must end and everything go back
        long drainEnd = sched.nanoTime() + 120_000 * MS;
        while (sched.nanoTime() - drainEnd < 0 && failure == null
                && actors.stream().anyMatch(a -> a.pending != null || a.busy)) {
            sched.runUntil(sched.nanoTime() + 1_000 * MS, this::check);
        }
        // then past every lease, so that a lock left behind shows
        sched.runUntil(sched.nanoTime() + 5_000 * MS, this::check);
        if (failure != null) {
            return report();
        }
        for (Actor a : actors) {
            if (a.pending != null || a.busy) {
                fail(a + " never finished: " + a.pending + (a.busy ? " (holding)" : ""));
            }
        }
        List<String> held = server.heldLocks();
        if (!held.isEmpty()) {
            fail("locks still held on the server after everyone finished: " + held);
        }
        int permits = server.permits.get(SEM);
        if (permits + server.permitsNotGiven != PERMITS) {
            fail("permits not conserved: " + permits + " on the server and " + server.permitsNotGiven
                    + " whose give never reached it, " + PERMITS + " expected");
        }
        if (!server.leasesOf(LEASED).isEmpty()) {
            fail("leased permits left: " + server.leasesOf(LEASED));
        }
        if (!server.fairQueues.isEmpty()) {
            fail("fair queue entries left: " + server.fairQueues);
        }
        watchingOrphans = false;
        for (Client c : clients) {
            c.engine.closeAsync();
        }
        sched.runUntil(sched.nanoTime() + remoteTimeout, null);
        for (Client c : clients) {
            if (c.engine.localStateCount() != 0) {
                fail("client " + c.id + " keeps local state after close: " + describeLocalState(c.engine));
            }
            if (c.backend.subscriptions() != 0) {
                fail("client " + c.id + " keeps " + c.backend.subscriptions() + " subscription(s) after close");
            }
        }
        return failure == null ? null : report();
    }

    static String describeLocalState(LockEngine e) {
        StringBuilder sb = new StringBuilder();
        for (NameState ns : e.nameStates.values()) {
            ns.lock();
            try {
                sb.append(ns.describeLocked()).append(' ');
            } finally {
                ns.unlock();
            }
        }
        return sb.toString();
    }

    private String report() {
        StringBuilder sb = new StringBuilder();
        sb.append("simulation seed ").append(seed).append(" failed at ").append(String.format("%.3f", ms()))
                .append(" ms: ").append(failure).append("\n  replay: -Dlatchkey.sim.seed=").append(seed).append(model.describe())
                .append("\n  last events:\n");
        for (String t : trace) {
            sb.append("    ").append(t).append('\n');
        }
        return sb.toString();
    }

    double ms() {
        return sched.nanoTime() / 1e6 - 1000;
    }

    void trace(String s) {
        trace.add(String.format("%8.3f %s", ms(), s));
    }

    void fail(String why) {
        if (failure == null) {
            failure = why;
            trace("FAILED: " + why);
        }
    }

    // ---------------------------------------------------------------------------------------------- properties

    /**
     * After every event: the invariants of every client's name states ({@link NameState#checkInvariants()}); mutual
     * exclusion and fencing order, from the owners' point of view.
     */
    void check() {
        if (failure != null) {
            return;
        }
        for (Client c : clients) {
            for (NameState ns : c.engine.nameStates.values()) {
                String broken = ns.checkInvariants();
                if (broken != null) {
                    fail("invariant broken in client " + c.id + ": " + broken);
                    return;
                }
            }
        }
        model.check(this);
        for (String name : new String[] {LOCK, FAIR}) {
            Actor holder = null;
            for (Actor a : actors) {
                if (a.holds(name) && !model.mayBeStale(this, a)) {
                    if (holder != null) {
                        long older = Math.min(holder.token(), a.token());
                        if (older > tokensAtRestart) {
                            fail(String.format("mutual exclusion: %s (token %d) and %s (token %d) both hold %s",
                                    holder, holder.token(), a, a.token(), name));
                        }
                    }
                    holder = a;
                }
            }
        }
        // a writer of the read-write lock excludes every other writer and reader
        for (Actor w : actors) {
            if (!w.holds(RW_WRITE) || model.mayBeStale(this, w)) {
                continue;
            }
            for (Actor a : actors) {
                if (a != w && (a.holds(RW_WRITE) || a.holds(RW_READ)) && !model.mayBeStale(this, a)
                        && Math.min(w.token(), a.token()) > tokensAtRestart) {
                    fail(String.format("read-write exclusion: %s writes (token %d) while %s holds %s (token %d)",
                            w, w.token(), a, a.leaseName, a.token()));
                    return;
                }
            }
        }
    }

    /** Every 50 ms: a free resource with waiters must be taken within one re-check. */
    void monitor() {
        if (failure == null && !stopping) {
            long bound = SimBackend.RECHECK_NANOS + remoteTimeout + 4 * faults.maxDelayNanos() + 100 * MS
                    + model.slackNanos();
            for (String name : new String[] {LOCK, FAIR, SEM}) {
                boolean free = name.equals(SEM) ? server.permits.get(SEM) >= 2 : server.holder(name) == null;
                boolean waited = false;
                for (Actor a : actors) {
                    if (a.pending != null && a.pendingName.equals(name) && !a.cancelled
                            && sched.nanoTime() - a.calledAt > 2 * faults.maxDelayNanos()) {
                        waited = true;
                        break;
                    }
                }
                if (free && waited) {
                    Long since = freeWithWaitersSince.putIfAbsent(name, sched.nanoTime());
                    if (since != null && sched.nanoTime() - since > bound) {
                        fail(String.format("lost wake-up: %s free for %d ms while owners wait for it", name,
                                (sched.nanoTime() - since) / MS));
                    }
                } else {
                    freeWithWaitersSince.remove(name);
                }
            }
            sched.at(50 * MS, this::monitor);
        }
    }

    /** Whether {@link #watchOrphans} still checks: until the clients close (a closed client cleans up nothing). */
    boolean watchingOrphans = true;

    /**
     * Every 50 ms, while the clients are open: what an attempt made at the server whose answer the network lost (a
     * lock's hold, a read hold, a leased permit, a semaphore's take) is gone within the round trips of its clean-up
     * after its client gave up on the answer, whoever owns it; it never stays until its lease runs out (or forever,
     * for a semaphore's permits).
     */
    void watchOrphans() {
        if (failure != null || !watchingOrphans) {
            return;
        }
        long bound = 4 * faults.maxDelayNanos() + 200 * MS + model.slackNanos();
        for (java.util.Iterator<SimServer.Orphan> it = server.orphans.iterator(); it.hasNext(); ) {
            SimServer.Orphan o = it.next();
            if (!o.there().getAsBoolean()) {
                it.remove();
            } else if (sched.nanoTime() - o.since() > bound) {
                fail(String.format("orphan: what %s made is still on the server %d ms after its answer was lost",
                        o.what(), (sched.nanoTime() - o.since()) / MS));
                return;
            }
        }
        sched.at(50 * MS, this::watchOrphans);
    }

    // ---------------------------------------------------------------------------------------------- clients

    final class Client {
        final int id;
        final SimBackend backend;
        final LockEngine engine;
        final SimBackend.LockOps plainOps;
        final SimBackend.LockOps fairOps;
        final SimBackend.CountOps countOps;
        final DistributedLock lock;
        final DistributedLock fair;
        final DistributedSemaphore semaphore;
        final DistributedCountDownLatch latch;
        final io.latchkey.PermitExpirableSemaphore leased;
        final SimBackend.LockOps readOps;
        final SimBackend.LockOps writeOps;
        final io.latchkey.DistributedReadWriteLock rw;

        Client(int id) {
            this.id = id;
            this.backend = new SimBackend(server, "c" + id, new Random(seed * 7919L + id), faults,
                    options.operationTimeout().toNanos(), trace);
            io.latchkey.core.TimeSource clock = model.clock(EngineSimulation.this, id);
            backend.clock = clock;
            this.engine = new LockEngine("sim", "c" + id, options, clock, model.timers(EngineSimulation.this, id),
                    model.timerClock(EngineSimulation.this, id), sched.timers());
            this.plainOps = backend.new LockOps(false, singleAttempts);
            this.fairOps = backend.new LockOps(true, singleAttempts);
            this.countOps = backend.new CountOps();
            this.lock = engine.lock(plainOps, LOCK);
            this.fair = engine.lock(fairOps, FAIR);
            this.semaphore = engine.semaphore(countOps, SEM);
            this.latch = engine.countDownLatch(countOps, LATCH);
            this.leased = engine.permitExpirableSemaphore(backend.new CountOps(), LEASED);
            this.readOps = backend.new LockOps(true, false, false);
            this.writeOps = backend.new LockOps(false, true, false);
            this.rw = engine.readWriteLock(readOps, writeOps, RW);
        }
    }

    /** One owner: a thread of the application, doing one thing at a time. */
    final class Actor {
        final Client client;
        final int index;
        final Random rng;
        final String threadOwner;
        /** The wait under way: its future, what it waits for, when it was called, its wait bound. */
        CompletableFuture<?> pending;
        String pendingName = "";
        long calledAt;
        long waitNanos;
        boolean cancelled;
        /** Holding something (between the grant and the end of the release). */
        boolean busy;
        LockLease lease;
        String leaseName;
        Hold threadHold;
        int permitsHeld;
        int seq;
        long callSeq;

        /** A fair grant: no owner that called earlier (so that its entry is ahead in the server's queue) still waits. */
        void checkFairOrder() {
            for (Actor b : actors) {
                if (b == this || b.pending == null || !b.pendingName.equals(FAIR) || b.cancelled
                        || b.calledAt <= lastRestartAt || model.outOfLine(EngineSimulation.this, b)) {
                    continue;
                }
                boolean ahead = b.client == client ? b.callSeq < callSeq
                        : calledAt - b.calledAt > 2 * faults.maxDelayNanos();
                if (ahead) {
                    fail(String.format("fair order: %s got %s while %s, who called %d ms earlier, still waits", this,
                            FAIR, b, (calledAt - b.calledAt) / MS));
                }
            }
        }

        Actor(Client client, int index, Random rng) {
            this.client = client;
            this.index = index;
            this.rng = rng;
            this.threadOwner = client.engine.clientId + ":t" + index;
        }

        @Override
        public String toString() {
            return "c" + client.id + "/o" + index;
        }

        void t(String s) {
            trace(this + " " + s);
        }

        boolean holds(String name) {
            if (lease != null && name.equals(leaseName)) {
                return lease.isValid();
            }
            // isValid: isHeld, and not in doubt (a backend whose connection is suspended makes every hold uncertain)
            return threadHold != null && name.equals(LOCK) && threadHold.isValid();
        }

        long token() {
            return lease != null ? lease.fencingToken() : threadHold.grant.fencingToken();
        }

        void next() {
            if (stopping || failure != null || client.engine.isClosed()) {
                return;
            }
            sched.at(rng.nextInt(30) * MS, () -> guarded(this::begin));
        }

        long pickWait() {
            return switch (rng.nextInt(4)) {
                case 0 -> 0;
                case 1 -> rng.nextInt(300) * MS;
                case 2 -> (300 + rng.nextInt(3000)) * MS;
                default -> -1;
            };
        }

        void begin() {
            if (stopping || failure != null || client.engine.isClosed()) {
                return;
            }
            seq++;
            switch (rng.nextInt(13)) {
                case 11 -> leaseLock(RW_READ, client.rw.readLock());
                case 12 -> leaseLock(RW_WRITE, client.rw.writeLock());
                case 0, 1, 2 -> leaseLock(LOCK, client.lock);
                case 3, 4 -> leaseLock(FAIR, client.fair);
                case 5, 6 -> threadLock();
                case 7, 8 -> semaphore();
                case 9 -> leasedPermit();
                default -> latch();
            }
        }

        /** The name on the server of what owners call {@code name}. */
        String serverName(String name) {
            return name.startsWith(RW) ? RW : name;
        }

        /** Whether this client's local state lets a new waiter of {@code name} go to the backend at once. */
        boolean aloneHere(String name) {
            NameState ns = client.engine.nameStates.get(new NameKey.Lock(name.equals(FAIR) ? client.fairOps
                    : name.equals(RW_READ) ? client.readOps : name.equals(RW_WRITE) ? client.writeOps
                    : client.plainOps, serverName(name)));
            if (ns == null) {
                return true;
            }
            ns.lock();
            try {
                return !ns.busyForOneLookLocked();
            } finally {
                ns.unlock();
            }
        }

        /** A lock wait that ran out while nothing of this client stood in its way must have looked once. */
        void checkLooked(String name) {
            if (!cancelled && alone && client.backend.attempts.getOrDefault(serverName(name), 0) == attemptsAtCall
                    && !client.engine.isClosed()) {
                fail(String.format("%s's wait for %s ended without one attempt", this, name));
            }
        }

        boolean alone;
        int attemptsAtCall;

        private void started(CompletableFuture<?> f, CompletableFuture<?> cancelTarget, String name, long wait) {
            pending = f;
            callSeq = ++calls;
            pendingName = name;
            calledAt = sched.nanoTime();
            waitNanos = wait;
            cancelled = false;
            if (rng.nextInt(5) == 0) {
                long at = rng.nextInt(wait > 0 ? (int) (wait / MS) + 50 : 400) * MS;
                sched.at(at, () -> {
                    if (pending == f && !f.isDone()) {
                        t("gives up waiting for " + name);
                        cancelled = true;
                        cancelTarget.cancel(true);
                    }
                });
            }
        }

        /** When a wait ends: it must end by its deadline plus one attempt. */
        private void ended(String what) {
            long took = sched.nanoTime() - calledAt;
            if (!cancelled && waitNanos >= 0 && took > waitNanos + remoteTimeout + MS + model.slackNanos()) {
                fail(String.format("%s %s waited %d ms for a %d ms wait", this, what, took / MS, waitNanos / MS));
            }
            pending = null;
        }

        private void holdFor(Runnable release) {
            long hold = rng.nextInt(10) == 0 ? (1000 + rng.nextInt(6000)) * MS : rng.nextInt(100) * MS;
            sched.at(hold, () -> guarded(release));
        }

        /** Runs {@code r}; a call refused because the client closed ends what the owner was doing. */
        void guarded(Runnable r) {
            try {
                r.run();
            } catch (IllegalStateException e) {
                if (!client.engine.isClosed()) {
                    throw e;
                }
                t("refused: client closed");
                busy = false;
                pending = null;
            }
        }

        /**
         * Fencing: tokens only grow. An owner may get its own token again (a release that never reached the server
         * leaves its hold there, and the same owner's next acquire finds it: the lock was never free in between).
         */
        private void seen(String name, long token) {
            Long last = lastValidToken.get(name);
            String lastOwner = lastValidOwner.get(name);
            // a grant made before a server restart may arrive after newer ones: the restart lost it (its holder
            // learns so at its next renewal), which only the fencing token can tell its users
            if (last != null && token > tokensAtRestart
                    && (token < last || token == last && !toString().equals(lastOwner))) {
                fail(String.format("fencing: %s got token %d on %s after %d (%s)", this, token, name, last,
                        lastOwner));
            }
            lastValidToken.put(name, token);
            lastValidOwner.put(name, toString());
        }

        // -------------------------------------------------------------------------------------------- locks

        void leaseLock(String name, DistributedLock view) {
            long wait = pickWait();
            Duration leaseTime = rng.nextBoolean() ? null : Duration.ofMillis(2000 + rng.nextInt(2000));
            t(String.format("%s.tryAcquireAsync(%s, %s)", name, wait < 0 ? "forever" : wait / MS + " ms",
                    leaseTime == null ? "watchdog" : leaseTime.toMillis() + " ms"));
            alone = aloneHere(name);
            attemptsAtCall = client.backend.attempts.getOrDefault(serverName(name), 0);
            CompletableFuture<?> raw = wait < 0 ? view.acquireAsync()
                    : view.tryAcquireAsync(Duration.ofNanos(wait), leaseTime);
            @SuppressWarnings("unchecked")
            CompletableFuture<Optional<LockLease>> f = wait < 0
                    ? ((CompletableFuture<LockLease>) raw).thenApply(Optional::of)
                    : (CompletableFuture<Optional<LockLease>>) raw;
            started(f, raw, name, wait);
            f.whenComplete((l, e) -> {
                if (pending != f) {
                    return;
                }
                ended(name);
                if (e != null || l.isEmpty()) {
                    t(name + " not acquired: " + (e != null ? LockEngine.unwrap(e) : "timed out"));
                    if (e == null) {
                        checkLooked(name);
                    }
                    next();
                    return;
                }
                LockLease got = l.get();
                t(name + " acquired, token " + got.fencingToken());
                if (name.equals(FAIR)) {
                    checkFairOrder();
                }
                lease = got;
                leaseName = name;
                busy = true;
                if (got.isValid() && !name.equals(RW_READ)) { // readers hold together: their tokens interleave
                    seen(name, got.fencingToken());
                }
                check();
                long hold = leaseTime == null ? -1 : leaseTime.toMillis() * MS;
                long h = rng.nextInt(10) == 0 && hold < 0 ? (1000 + rng.nextInt(6000)) * MS : rng.nextInt(100) * MS;
                sched.at(h, () -> guarded(() -> {
                    t(name + " releases token " + got.fencingToken());
                    got.releaseAsync().whenComplete((v, x) -> {
                        t(name + " released" + (x != null ? ": " + LockEngine.unwrap(x) : ""));
                        lease = null;
                        leaseName = null;
                        busy = false;
                        next();
                    });
                }));
            });
        }

        void threadLock() {
            long wait = pickWait();
            NameKey.Lock key = new NameKey.Lock(client.plainOps, LOCK);
            t(String.format("L.lock as thread (%s)", wait < 0 ? "forever" : wait / MS + " ms"));
            alone = aloneHere(LOCK);
            attemptsAtCall = client.backend.attempts.getOrDefault(LOCK, 0);
            Waiter<Hold> w;
            try {
                if (WaitStart.reenter(client.engine, key, threadOwner) != null) {
                    fail(this + " re-entered a hold it does not have");
                    return;
                }
                w = WaitStart.lock(client.engine, key, threadOwner, Waiter.Ownership.THREAD,
                        client.engine.watchdogMillis, true, wait);
            } catch (IllegalStateException closed) {
                return;
            }
            CompletableFuture<Hold> f = w.future;
            pending = f;
            callSeq = ++calls;
            pendingName = LOCK;
            calledAt = sched.nanoTime();
            waitNanos = wait;
            cancelled = false;
            if (rng.nextInt(5) == 0) {
                sched.at(rng.nextInt(400) * MS, () -> {
                    if (pending == f && !f.isDone()) {
                        t("is interrupted waiting for L");
                        cancelled = true;
                        // EngineLock.abandon: cancel, and give back a grant that raced the cancel, before going on
                        w.nameState.cancel(w);
                    }
                });
            }
            f.whenComplete((h, e) -> {
                if (pending != f) {
                    return;
                }
                ended(LOCK);
                if (cancelled) {
                    if (h != null) {
                        t("gives back the grant that raced its interrupt, token " + h.grant.fencingToken());
                        w.nameState.release(h).whenComplete((v, x) -> next());
                    } else {
                        next();
                    }
                    return;
                }
                if (e != null || h == null) {
                    t("L (thread) not acquired: " + (e != null ? LockEngine.unwrap(e) : "timed out"));
                    if (e == null) {
                        checkLooked(LOCK);
                    }
                    next();
                    return;
                }
                t("L (thread) acquired, token " + h.grant.fencingToken());
                threadHold = h;
                busy = true;
                seen(LOCK, h.grant.fencingToken());
                check();
                boolean reenter = rng.nextBoolean();
                if (reenter) {
                    Hold again = WaitStart.reenter(client.engine, key, threadOwner);
                    if (again != h && h.isHeld()) {
                        fail(this + " could not re-enter its hold");
                    }
                }
                holdFor(() -> {
                    if (reenter && !unlockOnce(key, true)) {
                        return;
                    }
                    unlockOnce(key, false);
                });
            });
        }

        /** EngineLock.unlock without blocking; returns whether the hold is still held (a nested unlock). */
        private boolean unlockOnce(NameKey.Lock key, boolean nested) {
            NameState ns = client.engine.nameStates.get(key);
            Object r = ns == null ? NameState.UnlockResult.NOT_HELD : ns.unlockThread(threadOwner);
            if (r == NameState.UnlockResult.STILL_HELD) {
                if (!nested) {
                    fail(this + " still holds L after its last unlock");
                }
                return true;
            }
            if (nested && r instanceof Hold) {
                fail(this + " released L at its nested unlock");
            }
            Runnable done = () -> {
                threadHold = null;
                busy = false;
                next();
            };
            if (r == NameState.UnlockResult.NOT_HELD) {
                if (threadHold != null && threadHold.isHeld()) {
                    fail(this + " holds L but unlock says it does not");
                }
                t("unlock: not held (lost before)");
                done.run();
                return false;
            }
            if (r instanceof NameState.LostUnlock lu) {
                t("unlock: lost");
                if (nested) {
                    // the inner unlock throws LockLostException; the outer finally unlocks again
                    return true;
                }
                ns.releaseLost(lu.hold()).whenComplete((v, e) -> done.run());
                return false;
            }
            t("L (thread) releases token " + ((Hold) r).grant.fencingToken());
            ns.release((Hold) r).whenComplete((v, e) -> {
                t("L (thread) released" + (e != null ? ": " + LockEngine.unwrap(e) : ""));
                done.run();
            });
            return false;
        }

        // -------------------------------------------------------------------------------------------- counted

        void semaphore() {
            long wait = pickWait();
            int n = 1 + rng.nextInt(2);
            t(String.format("S.tryAcquireAsync(%d, %s)", n, wait < 0 ? "forever" : wait / MS + " ms"));
            CompletableFuture<?> raw = wait < 0 ? client.semaphore.acquireAsync(n)
                    : client.semaphore.tryAcquireAsync(n, Duration.ofNanos(wait));
            @SuppressWarnings("unchecked")
            CompletableFuture<Boolean> f = wait < 0 ? raw.thenApply(v -> true) : (CompletableFuture<Boolean>) raw;
            started(f, raw, SEM, wait);
            f.whenComplete((ok, e) -> {
                if (pending != f) {
                    return;
                }
                ended(SEM);
                if (e != null || !ok) {
                    t("S not acquired: " + (e != null ? LockEngine.unwrap(e) : "timed out"));
                    next();
                    return;
                }
                t("S acquired " + n);
                permitsHeld = n;
                busy = true;
                holdFor(() -> {
                    t("S releases " + n);
                    client.semaphore.releaseAsync(n).whenComplete((v, x) -> {
                        if (x != null && !model.endsLeases()) {
                            fail(this + " could not give back permits: " + x);
                        } else if (x != null) {
                            t("S release failed: " + LockEngine.unwrap(x));
                            permitsReleaseFailed += n;
                        }
                        permitsHeld = 0;
                        busy = false;
                        next();
                    });
                });
            });
        }

        void leasedPermit() {
            long wait = pickWait();
            t(String.format("P.tryAcquireAsync(%s, 3 s)", wait < 0 ? "forever" : wait / MS + " ms"));
            CompletableFuture<?> raw = wait < 0 ? client.leased.acquireAsync(Duration.ofSeconds(3))
                    : client.leased.tryAcquireAsync(Duration.ofNanos(wait), Duration.ofSeconds(3));
            @SuppressWarnings("unchecked")
            CompletableFuture<Optional<String>> f = wait < 0
                    ? ((CompletableFuture<String>) raw).thenApply(Optional::of)
                    : (CompletableFuture<Optional<String>>) raw;
            started(f, raw, LEASED, wait);
            f.whenComplete((id, e) -> {
                if (pending != f) {
                    return;
                }
                ended(LEASED);
                if (e != null || id.isEmpty()) {
                    t("P not acquired: " + (e != null ? LockEngine.unwrap(e) : "timed out"));
                    next();
                    return;
                }
                t("P acquired " + id.get());
                busy = true;
                long hold = rng.nextInt(100) * MS;
                sched.at(hold, () -> guarded(() -> {
                    t("P releases " + id.get());
                    client.leased.releaseAsync(id.get()).whenComplete((ok, x) -> {
                        if (x == null && !ok && !faulty && !closed) {
                            fail(this + " lost permit " + id.get() + " without a fault");
                        }
                        busy = false;
                        next();
                    });
                }));
            });
        }

        void latch() {
            if (rng.nextInt(3) == 0) {
                t("C.countDown");
                client.latch.countDownAsync().whenComplete((v, e) -> next());
                return;
            }
            long wait = pickWait();
            t("C.awaitAsync(" + (wait < 0 ? "forever" : wait / MS + " ms") + ")");
            CompletableFuture<Boolean> f = client.latch.awaitAsync(Duration.ofNanos(wait < 0 ? 365L * 86_400_000 * MS
                    : wait));
            started(f, f, LATCH, wait);
            f.whenComplete((open, e) -> {
                if (pending != f) {
                    return;
                }
                ended(LATCH);
                if (e == null && open) {
                    t("C open");
                    if (server.getCount(LATCH) != 0) {
                        fail(this + " saw the latch open at count " + server.getCount(LATCH));
                    }
                }
                next();
            });
        }
    }

    /** The last {@code max} trace lines. */
    static final class TraceBuffer extends java.util.AbstractList<String> {
        private final ArrayDeque<String> lines = new ArrayDeque<>();
        private final int max;

        TraceBuffer(int max) {
            this.max = max;
        }

        @Override
        public boolean add(String s) {
            if (lines.size() == max) {
                lines.removeFirst();
            }
            lines.addLast(s);
            return true;
        }

        @Override
        public String get(int i) {
            return new ArrayList<>(lines).get(i);
        }

        @Override
        public java.util.Iterator<String> iterator() {
            return lines.iterator();
        }

        @Override
        public int size() {
            return lines.size();
        }
    }
}
