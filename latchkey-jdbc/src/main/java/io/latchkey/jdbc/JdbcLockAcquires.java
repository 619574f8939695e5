package io.latchkey.jdbc;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The lease-table lock's acquire state machine (what Redis calls {@code RedisLockAcquire}, etcd {@code
 * EtcdLockAcquire}, ZooKeeper {@code ZkLockAcquire}): the pending acquires of one client and when each tries again. A
 * busy acquire parks no thread: it tries again when {@link #released} is told of its row (by PostgreSQL's notification
 * through {@link PgReleaseListener}, or by this client's own release elsewhere), when {@link #wakeAll} is called (the
 * listener reconnected, expired rows were reclaimed), and otherwise after a bounded pause: with a listener the holder's
 * remaining lease capped at a second (a fallback for a lost notification), without one a backoff from 2 ms up to the
 * poll interval, never past the holder's remaining lease or the deadline. Attempts run on the runner's I/O pool, at
 * most one per waiter at a time.
 */
final class JdbcLockAcquires {

    private static final long PG_FALLBACK_MILLIS = 1_000;
    /** Short polling: each waiting name of the client adds this much to the longest re-check pause. */
    static final long SHORT_POLL_STEP_MILLIS = 20;

    private final JdbcRunner runner;
    private final LeaseTableRows rows;
    private final long maxPollMillis;
    private final Consumer<Grant> giveBack;
    private final boolean shortPoll;
    private final Map<String, Set<Acquire>> waiters = new ConcurrentHashMap<>();
    private volatile PgReleaseListener listener;

    /**
     * @param giveBack releases a grant whose acquire was abandoned while its statement ran
     * @param shortPoll without a listener, cap the re-check pause at {@value #SHORT_POLL_STEP_MILLIS} ms per name
     *        this client waits for (and at the poll interval): one waiter re-checks about every 20 ms, and the
     *        client's polling stays near 50 statements a second however many names it waits for, until the cap
     */
    JdbcLockAcquires(JdbcRunner runner, LeaseTableRows rows, long maxPollMillis, Consumer<Grant> giveBack,
                     boolean shortPoll) {
        this.shortPoll = shortPoll;
        this.runner = runner;
        this.rows = rows;
        this.maxPollMillis = maxPollMillis;
        this.giveBack = giveBack;
    }

    /** The PostgreSQL release listener whose notifications wake the waiters; set once, before the first acquire. */
    void listenTo(PgReleaseListener listener) {
        this.listener = listener;
    }

    /** Registers an acquire of {@code request} and makes its first attempt; the future completes as the request. */
    CompletableFuture<Grant> acquire(AcquireRequest request) {
        Acquire w = new Acquire(request, rows.key(request.name()));
        waiters.computeIfAbsent(w.key, k -> ConcurrentHashMap.newKeySet()).add(w);
        request.cancelled().thenRun(() -> finish(w, null, null));
        wake(w);
        return w.result;
    }

    /** Row {@code key} was released: its waiters re-check. */
    void released(String key) {
        Set<Acquire> ws = waiters.get(key);
        if (ws != null) {
            ws.forEach(this::wake);
        }
    }

    /** Every waiter re-checks. */
    void wakeAll() {
        waiters.values().forEach(ws -> ws.forEach(this::wake));
    }

    /** Fails every pending acquire with {@code error} (the client is closing). */
    void failAll(Throwable error) {
        waiters.values().forEach(ws -> ws.forEach(w -> finish(w, null, error)));
    }

    private void wake(Acquire w) {
        w.dirty = true;
        if (w.result.isDone() || !w.running.compareAndSet(false, true)) {
            return;
        }
        ScheduledFuture<?> t = w.timer;
        if (t != null) {
            t.cancel(false);
        }
        try {
            runner.io().execute(() -> tryOnce(w));
        } catch (RejectedExecutionException e) {
            finish(w, null, new LockUnavailableException("the JDBC lock client is closed", e));
        }
    }

    private void tryOnce(Acquire w) {
        w.dirty = false;
        AcquireRequest req = w.request;
        if (w.result.isDone() || req.isCancelled()) {
            finish(w, null, null);
            return;
        }
        LeaseTableRows.Outcome a;
        try {
            a = runner.call("acquire '" + req.name() + "'", c -> rows.tryAcquire(c, w.key, req));
        } catch (RuntimeException e) {
            finish(w, null, e);
            return;
        }
        if (a.token >= 0) {
            Grant g = new Grant(req, a.token, a.sentAt, null);
            if (!finish(w, g, null)) {
                giveBack.accept(g); // abandoned meanwhile: give the lock back rather than let it expire
            }
            return;
        }
        if (req.isExpired() || req.isCancelled()) {
            finish(w, null, null);
            return;
        }
        w.running.set(false);
        if (w.dirty || a.retryNow) {
            wake(w);
        } else {
            schedule(w, a.holderRemainingMillis);
        }
    }

    private void schedule(Acquire w, long holderRemainingMillis) {
        long delay;
        PgReleaseListener l = listener;
        if (l != null) {
            if (!w.listenerStarted) {
                w.listenerStarted = true;
                // A release between our attempt and LISTEN taking effect would be missed: re-check once it is on.
                l.start().whenComplete((v, t) -> wake(w));
            }
            delay = Math.min(Math.max(PG_FALLBACK_MILLIS, maxPollMillis), holderRemainingMillis + 1);
        } else {
            long cap = shortPoll ? Math.min(maxPollMillis, SHORT_POLL_STEP_MILLIS * Math.max(1, waiters.size()))
                    : maxPollMillis;
            delay = Math.min(Math.min(w.backoffMillis, cap), holderRemainingMillis + 1);
            w.backoffMillis = Math.min(w.backoffMillis * 2, maxPollMillis);
        }
        long remaining = w.request.remainingNanos();
        if (remaining != Long.MAX_VALUE) {
            delay = Math.min(delay, TimeUnit.NANOSECONDS.toMillis(remaining) + 1);
        }
        delay = Math.max(1, delay);
        try {
            w.timer = runner.timer().schedule(() -> wake(w), delay, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            finish(w, null, new LockUnavailableException("the JDBC lock client is closed", e));
        }
    }

    /** Completes the waiter; returns {@code false} if it was already complete. */
    private boolean finish(Acquire w, Grant grant, Throwable error) {
        Set<Acquire> ws = waiters.get(w.key);
        if (ws != null) {
            ws.remove(w);
            if (ws.isEmpty()) {
                waiters.computeIfPresent(w.key, (k, v) -> v.isEmpty() ? null : v);
            }
        }
        ScheduledFuture<?> t = w.timer;
        if (t != null) {
            t.cancel(false);
        }
        return error != null ? w.result.completeExceptionally(error) : w.result.complete(grant);
    }

    /** One pending acquire: its request, its row key, its result and its next re-check. */
    private static final class Acquire {
        final AcquireRequest request;
        final String key;
        final CompletableFuture<Grant> result = new CompletableFuture<>();
        final AtomicBoolean running = new AtomicBoolean();
        volatile boolean dirty;
        volatile ScheduledFuture<?> timer;
        volatile long backoffMillis = 2;
        volatile boolean listenerStarted;

        Acquire(AcquireRequest request, String key) {
            this.request = request;
            this.key = key;
        }
    }
}
