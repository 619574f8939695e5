package io.latchkey.core.internal;

import io.latchkey.core.Grant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's single timer thread: the batched lease renewer, the expiry of fixed leases (of lock holds and of
 * leased permits, calling the backend's clean-up at their end), and waiters' deadlines.
 *
 * <p>Every {@code renewalInterval} the tick takes every held watchdog lease — lock holds and watchdog permits of
 * permit-expirable semaphores alike ({@link Renewable}) — groups them by backend operations
 * ({@link io.latchkey.core.RemoteLockOps}, {@link io.latchkey.core.RemoteCountOps}) and sends ONE {@code renew}
 * per group, whatever the number of locks and permits. A group whose previous
 * renewal has not answered yet is skipped (not piled up) until the operation timeout has passed. A lease is marked
 * lost when the backend reports it gone, or when a renewal failed (or is still unanswered) and its local bound
 * ({@link Hold#leaseBoundNanos()}) passes before the next tick.
 *
 * <p>Tasks on this thread never block: they send asynchronous requests and update local state.
 */
final class Watchdog {
    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final LockEngine engine;
    private final java.util.concurrent.ScheduledExecutorService scheduler;
    /**
     * Watchdog permits being renewed. Watchdog lock holds are not kept here: the tick finds them in their
     * nameStates ({@link NameState#addRenewable}), so a held lock costs no entry in a second set.
     */
    private final Set<Renewable> renewed = ConcurrentHashMap.newKeySet();
    private final ConcurrentHashMap<Renewable.Renewer, Long> inFlightSince = new ConcurrentHashMap<>();
    private final FixedLeaseExpiry fixedLeases;
    /** The fixed-lease permits in {@link #fixedLeases}, by semaphore and id. */
    private final Map<PermitHold.Key, FixedPermit> fixedPermits = new ConcurrentHashMap<>();
    final String threadName;
    /** The client's one timer thread, also lent to the backend ({@link io.latchkey.core.MaintenanceScheduler}). */
    final ClientTimer timer;
    private volatile java.util.concurrent.ScheduledFuture<?> tick;
    /** Set by {@link #shutdown()}: the engine's tasks no longer run, while the backend's still may. */
    private volatile boolean closed;
    private volatile boolean started;
    private final java.util.concurrent.atomic.AtomicBoolean startedFlag = new java.util.concurrent.atomic.AtomicBoolean();

    /**
     * @param scheduler where timed tasks run, or {@code null} for the client's own watchdog thread
     * @param schedulerClock the clock {@code scheduler}'s delays are measured on ({@link TimeSource#SYSTEM} for the
     *        watchdog thread)
     */
    Watchdog(LockEngine engine, String threadName, java.util.concurrent.ScheduledExecutorService scheduler,
             io.latchkey.core.TimeSource schedulerClock) {
        this.engine = engine;
        this.threadName = threadName;
        this.fixedLeases = new FixedLeaseExpiry(this::schedule, schedulerClock);
        this.timer = new ClientTimer(threadName, scheduler);
        this.scheduler = timer.executor();
    }

    /**
     * Starts the thread and the renewal tick on first use, so that a client that never locks (or whose backend
     * fails in its constructor) starts no thread.
     */
    private void ensureStarted() {
        if (!started && startedFlag.compareAndSet(false, true)) {
            long period = engine.options.renewalInterval().toNanos();
            try {
                tick = scheduler.scheduleAtFixedRate(this::safeTick, period, period, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                // shut down concurrently: nothing to renew any more
            }
            started = true;
        }
    }

    /** Starts renewing a watchdog hold, or arms the expiry of a fixed one. */
    void track(Hold h) {
        ensureStarted();
        if (!h.grant.watchdog()) {
            fixedLeases.track(h, h.leaseBoundNanos() - engine.time.nanoTime());
            if (!h.isHeld()) {
                // lost (or released) while being tracked: whoever forgot it may have looked before the insert
                fixedLeases.untrack(h);
            }
        }
    }

    /** Stops renewing {@code h}; called before its remote release so that no renewal can outlive it. */
    void untrack(Hold h) {
        if (!h.grant.watchdog()) {
            fixedLeases.untrack(h);
        }
    }

    /**
     * Starts watching the fixed lease of a permit this client took, which runs out at {@code endNanos} on the engine's
     * clock; replaces the permit's earlier lease end, if any.
     */
    void trackFixedPermit(PermitHold.Key key, long endNanos) {
        ensureStarted();
        FixedPermit p = new FixedPermit(key, endNanos, fixedPermits);
        untrackFixed(fixedPermits.put(key, p));
        fixedLeases.track(p, endNanos - engine.time.nanoTime());
    }

    /** Stops watching a permit's fixed lease (released, or its lease being updated); the entry, or {@code null}. */
    FixedPermit untrackFixedPermit(PermitHold.Key key) {
        FixedPermit p = fixedPermits.remove(key);
        untrackFixed(p);
        return p;
    }

    private void untrackFixed(FixedPermit p) {
        if (p != null) {
            fixedLeases.untrack(p);
        }
    }

    /** Starts renewing a watchdog permit ({@link PermitHold}) in the same batches as lock holds. */
    void trackPermit(Renewable permit) {
        ensureStarted();
        renewed.add(permit);
    }

    /** Stops renewing a permit; called before its remote release. */
    void untrackPermit(Renewable permit) {
        renewed.remove(permit);
    }

    int renewedCount() {
        Map<Renewable.Renewer, List<Renewable>> holds = new HashMap<>();
        for (NameState s : engine.nameStates.values()) {
            s.addRenewable(holds);
        }
        int n = renewed.size();
        for (List<Renewable> l : holds.values()) {
            n += l.size();
        }
        return n;
    }

    /** Runs {@code task} on the watchdog thread after {@code delayNanos}; {@code null} once shut down. */
    ScheduledFuture<?> schedule(Runnable task, long delayNanos) {
        if (closed) {
            return null;
        }
        ensureStarted();
        try {
            return scheduler.schedule(() -> {
                if (closed) {
                    return; // the client closed: the engine's timers end there, as if the thread had stopped
                }
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.warn("{}: scheduled task failed", threadName, e);
                }
            }, delayNanos, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    private void safeTick() {
        if (closed) {
            return;
        }
        try {
            tick();
        } catch (RuntimeException e) {
            log.warn("{}: renewal tick failed", threadName, e);
        }
    }

    /** One renewal round: one {@code renew} call per backend operation set; also drops long-idle nameStates. */
    void tick() {
        engine.sweepIdleNameStates();
        long now = engine.time.nanoTime();
        Map<Renewable.Renewer, List<Renewable>> batches = new HashMap<>();
        for (NameState s : engine.nameStates.values()) {
            s.addRenewable(batches);
        }
        for (Renewable h : renewed) {
            if (!h.isHeld()) {
                renewed.remove(h);
            } else {
                // even past its local bound a hold is sent: if the backend still has this exact grant (same
                // token), the lock was never free in between, so a late tick alone does not lose it
                batches.computeIfAbsent(h.renewer(), k -> new ArrayList<>()).add(h);
            }
        }
        for (Map.Entry<Renewable.Renewer, List<Renewable>> batch : batches.entrySet()) {
            Renewable.Renewer ops = batch.getKey();
            Long since = inFlightSince.get(ops);
            if (since != null && now - since < engine.remoteTimeoutNanos()) {
                // the previous renewal has not answered: what it cannot confirm any more is lost
                List<Renewable> lost = new ArrayList<>();
                for (Renewable h : batch.getValue()) {
                    if (expiresBeforeNextTick(h, now) && h.beginLost(String.format(
                            "its renewal got no answer within its lease of %d ms", h.grant().leaseMillis()))) {
                        lost.add(h);
                    }
                }
                lost.forEach(Renewable::finishLost);
                continue;
            }
            inFlightSince.put(ops, now);
            List<Renewable> holds = batch.getValue();
            List<Grant> grants = new ArrayList<>(holds.size());
            for (Renewable h : holds) {
                grants.add(h.grant());
            }
            CompletableFuture<Set<Grant>> f;
            try {
                f = ops.renew(grants);
                if (f == null) {
                    f = CompletableFuture.failedFuture(new IllegalStateException("backend returned no future"));
                }
            } catch (RuntimeException e) {
                f = CompletableFuture.failedFuture(e);
            }
            f.whenComplete((lost, e) -> onRenewed(ops, now, holds, lost, e));
        }
    }

    private void onRenewed(Renewable.Renewer ops, long sentAt, List<Renewable> holds, Set<Grant> lost, Throwable e) {
        inFlightSince.remove(ops, sentAt);
        long now = engine.time.nanoTime();
        if (e != null) {
            Throwable cause = LockEngine.unwrap(e);
            log.warn("{}: renewal of {} lock(s) failed; retrying at the next tick: {}", threadName, holds.size(),
                    cause.toString());
            List<Renewable> lostNow = new ArrayList<>();
            for (Renewable h : holds) {
                if (expiresBeforeNextTick(h, now) && h.beginLost(String.format("renewal failed (%s) and its lease "
                        + "of %d ms runs out before the next attempt", cause, h.grant().leaseMillis()))) {
                    lostNow.add(h);
                }
            }
            lostNow.forEach(Renewable::finishLost);
            return;
        }
        Set<GrantKey> lostKeys = new HashSet<>();
        if (lost != null) {
            for (Grant g : lost) {
                lostKeys.add(GrantKey.of(g));
            }
        }
        List<Renewable> lostNow = new ArrayList<>();
        for (Renewable h : holds) {
            if (lostKeys.contains(GrantKey.of(h.grant()))) {
                if (h.beginLost("the watchdog found it no longer held (expired, force-unlocked or taken over)")) {
                    lostNow.add(h);
                }
            } else if (h.isHeld()) {
                h.renewedAt(sentAt);
            }
        }
        lostNow.forEach(Renewable::finishLost);
        engine.events.renewed(holds.size(), now - sentAt);
    }

    /**
     * Whether the hold's local bound passes before the next tick could renew it (with half an interval to spare
     * for a late tick): without a confirmed renewal now, it must be reported lost now, before the server can give
     * the lock to someone else. With the interval at a third of the lease that is the second failed renewal in a
     * row. The spare half interval also keeps holds acquired a moment apart from being told apart by a tick that
     * happens to fall between their bounds.
     */
    private boolean expiresBeforeNextTick(Renewable h, long now) {
        long interval = engine.options.renewalInterval().toNanos();
        return now + interval + interval / 2 - h.leaseBoundNanos() >= 0;
    }

    boolean isStarted() {
        return started;
    }

    boolean isWatchdogThread() {
        return timer.isTimerThread();
    }

    /**
     * Ends the engine's timers (the client closes): the tick, fixed-lease ends, deadlines and re-checks run no more.
     * The thread itself goes on for the backend's maintenance until {@link #stop()}.
     */
    void shutdown() {
        closed = true;
        java.util.concurrent.ScheduledFuture<?> t = tick;
        if (t != null) {
            t.cancel(false);
        }
        renewed.clear();
        fixedPermits.clear();
        fixedLeases.clear();
    }

    /** Ends the engine's timers and the thread (for an engine closed without a client around it). */
    void stop() {
        shutdown();
        timer.stop();
    }

    private record GrantKey(String name, String ownerId, long token) {
        static GrantKey of(Grant g) {
            return new GrantKey(g.name(), g.ownerId(), g.fencingToken());
        }
    }
}
