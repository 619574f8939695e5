package io.latchkey.core.internal;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.RemoteCountOps;
import io.latchkey.core.RemoteLockOps;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import io.latchkey.core.RemoteCountOps.Subscription;

/**
 * One client's view of the {@link SimServer}: a network with random delays (FIFO per direction unless reordering is
 * on), answers that may be lost (the driver then fails the call after the operation timeout, whether or not the
 * server applied it), pushes that may be lost, and the backend's half of each primitive as the engine's SPIs want it
 * today: {@link LockOps#acquire} waits for a push or a re-check at the holder's remaining lease, honours the
 * deadline and the cancellation, and withdraws a fair waiter's queue entry when it gives up.
 */
final class SimBackend {

    /** How faulty the network and server are; all probabilities per message. */
    record Faults(long maxDelayNanos, boolean reorder, double loseAnswer, double losePush, double failRelease) {
    }

    static final long RECHECK_NANOS = 500_000_000L;
    static final long COUNT_RECHECK_MILLIS = 200;

    final SimServer server;
    final SimScheduler sched;
    final Random rng;
    final Faults faults;
    final long opTimeoutNanos;
    final String clientId;
    final List<String> trace;
    private long lastUp;
    private long lastDown;
    private int nextOpsId;
    /** The client's clock, on which the grants' {@code requestedAtNanos} are read (the scheduler's unless skewed). */
    io.latchkey.core.TimeSource clock;
    /** Whether this client's connection is down now: requests are not sent (or not applied), pushes are lost. */
    java.util.function.BooleanSupplier cut = () -> false;
    /**
     * Whether a request refused while the connection is down fails after a connect timeout of 100 ms (else after
     * the operation timeout, as a client that queues requests while it reconnects).
     */
    boolean failFast;
    /** This client's server subscriptions, one per name, shared by its waiting acquires. */
    private final Map<String, Set<Runnable>> wakers = new HashMap<>();
    private final Map<String, Runnable> unsubscribes = new HashMap<>();

    SimBackend(SimServer server, String clientId, Random rng, Faults faults, long opTimeoutNanos, List<String> trace) {
        this.server = server;
        this.sched = server.sched;
        this.clock = server.sched;
        this.clientId = clientId;
        this.rng = rng;
        this.faults = faults;
        this.opTimeoutNanos = opTimeoutNanos;
        this.trace = trace;
    }

    private long delay(boolean up, boolean fifo) {
        long d = 1 + (long) (rng.nextDouble() * faults.maxDelayNanos);
        long at = sched.nanoTime() + d;
        if (fifo || !faults.reorder) {
            if (up) {
                at = Math.max(at, lastUp + 1);
                lastUp = at;
            } else {
                at = Math.max(at, lastDown + 1);
                lastDown = at;
            }
        }
        return at - sched.nanoTime();
    }

    /**
     * A round trip: {@code atServer} runs when the request arrives; its result travels back. With {@code lossy}, the
     * answer may be lost: the caller's future then fails after the operation timeout.
     */
    <T> CompletableFuture<T> call(String what, boolean lossy, boolean fifo, Supplier<T> atServer) {
        return call(what, lossy, fifo, atServer, r -> null);
    }

    /**
     * As {@link #call(String, boolean, boolean, Supplier)}; {@code made} tells what an answer the network lost leaves
     * on the server (whether it is still there), or {@code null} for nothing: an {@link SimServer.Orphan} from the
     * moment the caller's future fails.
     */
    <T> CompletableFuture<T> call(String what, boolean lossy, boolean fifo, Supplier<T> atServer,
                                  java.util.function.Function<T, java.util.function.BooleanSupplier> made) {
        if (cut.getAsBoolean()) {
            return unreachable(what, sched.nanoTime() + (failFast ? 100_000_000L : opTimeoutNanos));
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        boolean lose = lossy && rng.nextDouble() < faults.loseAnswer;
        long back = delay(false, fifo);
        long failsAt = sched.nanoTime() + opTimeoutNanos;
        sched.at(delay(true, fifo), () -> {
            if (cut.getAsBoolean()) {
                // the connection broke while the request was on its way: the server never sees it
                unreachable(what, failsAt).whenComplete((r, e) -> f.completeExceptionally(e));
                return;
            }
            T r = atServer.get();
            if (lose) {
                trace.add(String.format("%8.3f %s %s -> %s (answer lost)", ms(), clientId, what, r));
                server.answerLost.run();
                java.util.function.BooleanSupplier there = made.apply(r);
                if (there != null) {
                    server.orphans.add(new SimServer.Orphan(clientId + " " + what, failsAt, there));
                }
                return;
            }
            sched.at(back, () -> f.complete(r));
        });
        if (lose) {
            sched.at(opTimeoutNanos, () -> f.completeExceptionally(
                    new LockUnavailableException(what + " timed out (simulated)")));
        }
        return f;
    }

    /**
     * A counted attempt's round trip ({@code tryTake}, {@code tryLease}): as {@link #call}, but an
     * answer the network would lose arrives late instead, past the engine's operation timeout, so that a waiter whose
     * deadline passed meanwhile ends by the engine's backstop and what the late answer took must be given back.
     * ({@code getCount} answers in time: a latch's zero-wait look is one bounded call outside the waiting machine,
     * whose bound ends with the watchdog when the client closes.)
     */
    <T> CompletableFuture<T> attemptCall(String what, Supplier<T> atServer,
                                         java.util.function.Function<T, java.util.function.BooleanSupplier> made) {
        if (cut.getAsBoolean() || rng.nextDouble() >= faults.loseAnswer) {
            return call(what, false, false, atServer);
        }
        if (rng.nextBoolean()) {
            // applied at the server, the answer never arrives: the caller's future fails after the operation timeout
            CompletableFuture<T> f = new CompletableFuture<>();
            long failsAt = sched.nanoTime() + opTimeoutNanos;
            sched.at(delay(true, false), () -> {
                T r = atServer.get();
                trace.add(String.format("%8.3f %s %s -> %s (answer lost)", ms(), clientId, what, r));
                server.answerLost.run();
                java.util.function.BooleanSupplier there = made.apply(r);
                if (there != null) {
                    server.orphans.add(new SimServer.Orphan(clientId + " " + what, failsAt, there));
                }
            });
            sched.at(opTimeoutNanos, () -> f.completeExceptionally(
                    new LockUnavailableException(what + " timed out (simulated)")));
            return f;
        }
        CompletableFuture<T> f = new CompletableFuture<>();
        long late = opTimeoutNanos + opTimeoutNanos / 5 + delay(false, false);
        sched.at(delay(true, false), () -> {
            T r = atServer.get();
            trace.add(String.format("%8.3f %s %s -> %s (answer late)", ms(), clientId, what, r));
            server.answerLost.run();
            sched.at(late, () -> f.complete(r));
        });
        return f;
    }

    /**
     * A withdrawal of a fair queue entry, tried again every 200 ms until the server answers (as the lock SPI asks of
     * a backend, so that no entry blocks the queue); only a lost connection fails one.
     */
    private CompletableFuture<Void> withdrawRetried(String what, String name, String entry) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        this.<Void>call(what, false, true, () -> {
            server.withdraw(name, entry);
            return null;
        }).whenComplete((v, e) -> {
            if (e == null) {
                done.complete(null);
            } else {
                sched.at(200_000_000L, () -> withdrawRetried(what, name, entry).thenRun(() -> done.complete(null)));
            }
        });
        return done;
    }

    /** A request the connection being down kept from the server: it fails at {@code failsAt}. */
    private <T> CompletableFuture<T> unreachable(String what, long failsAt) {
        trace.add(String.format("%8.3f %s %s -> not sent (connection lost)", ms(), clientId, what));
        CompletableFuture<T> f = new CompletableFuture<>();
        sched.at(failsAt - sched.nanoTime(), () -> f.completeExceptionally(
                new LockUnavailableException(what + " failed: connection lost (simulated)")));
        return f;
    }

    double ms() {
        return sched.nanoTime() / 1e6 - 1000;
    }

    /** A push from the server to this client, which the network may lose. */
    private void deliverPush(String name) {
        if (cut.getAsBoolean() || rng.nextDouble() < faults.losePush) {
            return;
        }
        sched.at(delay(false, false), () -> {
            Set<Runnable> w = wakers.get(name);
            if (w != null) {
                for (Runnable r : new ArrayList<>(w)) {
                    r.run();
                }
            }
        });
    }

    private void watch(String name, Runnable waker) {
        Set<Runnable> w = wakers.computeIfAbsent(name, k -> new LinkedHashSet<>());
        w.add(waker);
        if (!unsubscribes.containsKey(name)) {
            // subscribing takes effect on the server at once here; the waiter re-checks after it anyway
            unsubscribes.put(name, server.subscribe(name, this::deliverPush));
        }
    }

    private void unwatch(String name, Runnable waker) {
        Set<Runnable> w = wakers.get(name);
        if (w != null && w.remove(waker) && w.isEmpty()) {
            wakers.remove(name);
            Runnable u = unsubscribes.remove(name);
            if (u != null) {
                u.run();
            }
        }
    }

    /** Attempts sent per lock name, for the "a wait never ends without one look" property. */
    final Map<String, Integer> attempts = new HashMap<>();

    int subscriptions() {
        return wakers.size();
    }

    // ---------------------------------------------------------------------------------------------- locks

    final class LockOps implements RemoteLockOps {
        final boolean fair;
        /** Answers single attempts (the engine waits) instead of waiting in {@link #acquire}. */
        final boolean single;
        /** The read half of a read-write lock (shared), the write half, or neither. */
        final boolean read;
        final boolean write;
        final int id = nextOpsId++;

        LockOps(boolean fair, boolean single) {
            this(fair, single, false, false);
        }

        /** A half of a read-write lock: single attempts, not fair, no hand-off. */
        LockOps(boolean read, boolean write, boolean unused) {
            this(false, true, read, write);
        }

        private LockOps(boolean fair, boolean single, boolean read, boolean write) {
            this.fair = fair;
            this.single = single;
            this.read = read;
            this.write = write;
        }

        @Override
        public boolean shared() {
            return read;
        }

        private long tryAt(AcquireRequest req) {
            return read ? server.tryRead(req.name(), req.ownerId(), req.leaseMillis(), req.attemptId())
                    : write ? server.tryWrite(req.name(), req.ownerId(), req.leaseMillis(), req.attemptId())
                    : server.tryLock(req.name(), req.ownerId(), req.leaseMillis(), fair, req.attemptId());
        }

        @Override
        public CompletableFuture<Boolean> cleanUpAttempt(AcquireRequest req) {
            return call("clean up " + req.name() + " for " + req.ownerId(), false, true,
                    () -> server.cleanUpAttempt(req.name(), req.ownerId(), req.attemptId()));
        }

        @Override
        public boolean singleAttempts() {
            return single;
        }

        @Override
        public CompletableFuture<Attempt> tryAcquire(AcquireRequest req, String entry) {
            long sentAt = clock.nanoTime();
            attempts.merge(req.name(), 1, Integer::sum);
            return call((read ? "read " : write ? "write " : "try ") + req.name() + " for " + req.ownerId(), true,
                    fair, () -> tryAt(req), t -> madeHold(req.name(), req.ownerId(), t))
                    .thenApply(t -> t >= 0 ? Attempt.granted(new Grant(req, t, sentAt, null))
                            : fair ? Attempt.queued(req.ownerId(), Math.min(RECHECK_NANOS, -t - 1))
                            : Attempt.busy(Math.min(RECHECK_NANOS, -t - 1)));
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
            return call("subscribe " + name, false, fair, () -> {
                watch(name, changed);
                return (Subscription) () -> unwatch(name, changed);
            });
        }

        @Override
        public CompletableFuture<Void> withdraw(AcquireRequest req, String entry) {
            return withdrawRetried("withdraw " + entry, req.name(), entry != null ? entry : req.ownerId());
        }

        @Override
        public int hashCode() {
            return clientId.hashCode() * 31 + id;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }

        @Override
        public boolean fair() {
            return fair;
        }

        @Override
        public boolean supportsHandOff() {
            return !fair && !read && !write;
        }

        @Override
        public CompletableFuture<Grant> acquire(AcquireRequest request) {
            if (single) {
                throw new AssertionError("the engine waits itself for single-attempt ops");
            }
            return new Acquire(this, request).start();
        }

        @Override
        public CompletableFuture<Boolean> release(Grant g) {
            if (rng.nextDouble() < faults.failRelease) {
                // the release never reaches the server: the lock ends with its lease
                CompletableFuture<Boolean> f = new CompletableFuture<>();
                sched.at(opTimeoutNanos, () -> f.completeExceptionally(
                        new LockUnavailableException("release timed out (simulated)")));
                return f;
            }
            return call("release " + g.name() + "#" + g.fencingToken(), true, fair,
                    () -> read ? server.releaseRead(g.name(), g.ownerId(), g.fencingToken())
                            : server.release(g.name(), g.ownerId(), g.fencingToken()));
        }

        @Override
        public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
            List<Grant> copy = new ArrayList<>(grants);
            return call("renew", true, fair, () -> {
                Set<Grant> lost = new HashSet<>();
                for (Grant g : copy) {
                    if (!(read ? server.renewRead(g.name(), g.ownerId(), g.fencingToken(), g.leaseMillis())
                            : server.renew(g.name(), g.ownerId(), g.fencingToken(), g.leaseMillis()))) {
                        lost.add(g);
                    }
                }
                return lost;
            });
        }

        @Override
        public CompletableFuture<Grant> handOff(Grant from, AcquireRequest request) {
            long sentAt = clock.nanoTime();
            return call("handOff " + from.name() + " to " + request.ownerId(), true, fair, () -> server.handOff(
                    from.name(), from.ownerId(), from.fencingToken(), request.ownerId(), request.leaseMillis(),
                    request.attemptId()), t -> madeHold(from.name(), request.ownerId(), t))
                    .thenApply(t -> t < 0 ? null : new Grant(request, t, sentAt, null));
        }

        @Override
        public CompletableFuture<Boolean> isLocked(String name) {
            return call("isLocked", false, fair, () -> server.holder(name) != null);
        }

        @Override
        public CompletableFuture<Boolean> forceUnlock(String name) {
            return call("forceUnlock", false, fair, () -> server.forceUnlock(name));
        }
    }

    /** The backend's waiting acquire (today's contract): one attempt at a time until granted, expired or cancelled. */
    private final class Acquire {
        final LockOps ops;
        final AcquireRequest req;
        final CompletableFuture<Grant> result = new CompletableFuture<>();
        final Runnable waker = this::wake;
        boolean inFlight;
        boolean again;
        SimScheduler.Event timer;
        SimScheduler.Event deadline;

        Acquire(LockOps ops, AcquireRequest req) {
            this.ops = ops;
            this.req = req;
        }

        CompletableFuture<Grant> start() {
            watch(req.name(), waker);
            req.cancelled().thenRun(this::wake);
            if (req.deadlineNanos() != AcquireRequest.NO_DEADLINE) {
                deadline = sched.at(req.deadlineNanos() - req.time().nanoTime(), this::wake);
            }
            attempt();
            return result;
        }

        void wake() {
            if (result.isDone()) {
                return;
            }
            if (inFlight) {
                again = true;
                return;
            }
            if (req.isCancelled() || req.isExpired()) {
                finish(null, null);
                return;
            }
            attempt();
        }

        void attempt() {
            attempts.merge(req.name(), 1, Integer::sum);
            inFlight = true;
            again = false;
            long sentAt = clock.nanoTime();
            call("try " + req.name() + " for " + req.ownerId(), true, ops.fair,
                    () -> server.tryLock(req.name(), req.ownerId(), req.leaseMillis(), ops.fair, req.attemptId()),
                    t -> madeHold(req.name(), req.ownerId(), t))
                    .whenComplete((t, e) -> {
                        inFlight = false;
                        if (e != null) {
                            finish(null, e);
                        } else if (t >= 0) {
                            finish(new Grant(req, t, sentAt, null), null);
                        } else if (req.isCancelled() || req.isExpired()) {
                            finish(null, null);
                        } else if (again) {
                            attempt();
                        } else {
                            long recheck = Math.min(RECHECK_NANOS, -t - 1);
                            if (timer != null) {
                                timer.cancel(false);
                            }
                            timer = sched.at(Math.max(1, recheck), this::wake);
                        }
                    });
        }

        void finish(Grant g, Throwable e) {
            if (result.isDone()) {
                return;
            }
            unwatch(req.name(), waker);
            if (timer != null) {
                timer.cancel(false);
            }
            if (deadline != null) {
                deadline.cancel(false);
            }
            if (g == null && ops.fair) {
                withdrawRetried("withdraw " + req.ownerId(), req.name(), req.ownerId());
            }
            if (e != null) {
                result.completeExceptionally(e);
            } else {
                result.complete(g);
            }
        }
    }

    /** What a lock attempt answered with token {@code t} left on the server: the hold, if it granted one. */
    private java.util.function.BooleanSupplier madeHold(String name, String owner, long t) {
        return t < 0 ? null : () -> server.holds(name, owner, t);
    }

    // ---------------------------------------------------------------------------------------------- counted

    final class CountOps implements RemoteCountOps {
        final int id = nextOpsId++;
        /** Takes sent without an attempt id get one here, so that the server can tell them apart all the same. */
        private long untracked;

        @Override
        public int hashCode() {
            return clientId.hashCode() * 31 + id;
        }

        @Override
        public boolean equals(Object o) {
            return o == this;
        }

        @Override
        public long recheckMillis() {
            return COUNT_RECHECK_MILLIS;
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
            Runnable waker = changed;
            return call("subscribe " + name, false, false, () -> {
                watch(name, waker);
                return (Subscription) () -> unwatch(name, waker);
            });
        }

        @Override
        public CompletableFuture<Integer> availablePermits(String name) {
            return call("available", false, false, () -> server.permits.getOrDefault(name, 0));
        }

        @Override
        public CompletableFuture<Boolean> tryTake(String name, int permits) {
            return tryTake(name, permits, clientId + "-sim-" + (++untracked));
        }

        @Override
        public CompletableFuture<Boolean> tryTake(String name, int permits, String attemptId) {
            return attemptCall("tryTake " + permits, () -> server.tryTake(name, permits, attemptId),
                    ok -> ok ? () -> server.takes.containsKey(attemptId) : null);
        }

        @Override
        public CompletableFuture<Boolean> cleanUpTake(String name, int permits, String attemptId) {
            return call("clean up take " + permits, false, false, () -> server.cleanUpTake(name, attemptId));
        }

        @Override
        public CompletableFuture<Void> give(String name, int permits) {
            return SimBackend.this.<Void>call("give " + permits, false, false, () -> {
                server.give(name, permits);
                return null;
            }).whenComplete((v, e) -> {
                if (e != null) {
                    server.permitsNotGiven += permits; // a give fails only when it was not sent: a lost connection
                }
            });
        }

        @Override
        public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
            long sentAt = clock.nanoTime();
            return attemptCall("tryLease " + permitId, () -> server.tryLease(name, permitId, leaseMillis),
                    ok -> ok ? () -> server.leasesOf(name).containsKey(permitId) : null)
                    .thenApply(ok -> ok ? Attempt.granted(new Grant(name, permitId, 0, leaseMillis, watchdog, sentAt,
                            null)) : Attempt.busy(server.nanosToEarliestLeaseEnd(name)));
        }

        @Override
        public CompletableFuture<Boolean> release(String name, String permitId) {
            return call("release " + permitId, false, false, () -> server.releaseLease(name, permitId));
        }

        @Override
        public boolean renewsPermits() {
            return true;
        }

        @Override
        public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
            List<Grant> copy = new ArrayList<>(grants);
            return call("renew permits", false, false, () -> {
                Set<Grant> lost = new HashSet<>();
                for (Grant g : copy) {
                    if (!server.renewLease(g.name(), g.ownerId(), g.leaseMillis())) {
                        lost.add(g);
                    }
                }
                return lost;
            });
        }

        @Override
        public CompletableFuture<Void> countDown(String name) {
            return call("countDown", false, false, () -> {
                server.countDown(name);
                return null;
            });
        }

        @Override
        public CompletableFuture<Long> getCount(String name) {
            return call("getCount", false, false, () -> server.getCount(name));
        }
    }
}
