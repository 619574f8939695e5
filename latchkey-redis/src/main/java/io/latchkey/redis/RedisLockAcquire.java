package io.latchkey.redis;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The one acquire state machine of the Redis backend: one lock acquire (plain, fair, read-write) from first attempt
 * to outcome, driven by replies, pub/sub messages and the client's timer (no thread of its own), for any attempt
 * script: an attempt answers a token (&gt; 0, granted) or minus the number of milliseconds after which to re-check
 * at the latest (for the plain lock: the holder's remaining lease, see {@link #recheckAtHolderExpiry}).
 *
 * <p>On the first refusal it subscribes to its wake-up channel and only then attempts again, so a release between
 * the two is not missed; afterwards it attempts again on the next message or at the re-check time (bounded by
 * {@code maxRecheckMillis}, the heartbeat of waiters the server forgets when they stop asking), whichever is
 * first. When the request is abandoned or its deadline passes, {@code onAbandon} runs once (fire and forget) so
 * that the server forgets the waiter at once rather than when its registration expires.
 *
 * <p>With {@link #lingerChannel} (a channel of one owner, which waits on it again soon, such as a thread on a fair
 * lock) the channel stays subscribed for a while after the outcome, and a next wait that finds it subscribed takes it
 * before its first attempt, which saves an attempt and a SUBSCRIBE/UNSUBSCRIBE pair per contended wait.
 */
final class RedisLockAcquire implements Runnable {

    /** One attempt; the argument says whether the caller will wait if refused (so the server may queue it). */
    interface Attempt extends Function<Boolean, CompletableFuture<Long>> {
    }

    private final UnlockSubscriptions subscriptions;
    private final ScheduledExecutorService scheduler;
    private final AcquireRequest request;
    private final String channelName;
    private final Attempt attempt;
    private final Runnable onAbandon;
    private final long maxRecheckMillis;
    private final Object backendState;
    private final CompletableFuture<Grant> result = new CompletableFuture<>();
    private final AtomicLong armed = new AtomicLong();
    private long generation;
    private UnlockSubscriptions.Channel channel;
    private boolean pollOnly;
    private long lingerMillis;
    private boolean holderExpiry;
    private java.util.function.Consumer<Throwable> onSubscriptionRefused = e -> { };
    private volatile ScheduledFuture<?> timer;

    RedisLockAcquire(UnlockSubscriptions subscriptions, ScheduledExecutorService scheduler, AcquireRequest request,
                   String channelName, Attempt attempt, Runnable onAbandon, long maxRecheckMillis,
                   Object backendState) {
        this.subscriptions = subscriptions;
        this.scheduler = scheduler;
        this.request = request;
        this.channelName = channelName;
        this.attempt = attempt;
        this.onAbandon = onAbandon;
        this.maxRecheckMillis = maxRecheckMillis;
        this.backendState = backendState;
    }

    /** Keeps the channel subscribed {@code millis} after this wait (see the class comment); before {@link #start}. */
    RedisLockAcquire lingerChannel(long millis) {
        this.lingerMillis = millis;
        return this;
    }

    /**
     * The plain lock's re-check: a refusal's milliseconds are the holder's remaining lease, so the re-check is then
     * (not capped by {@code maxRecheckMillis}, a lost unlock message costs at most the lease); a holder without an
     * expiry (not one of ours or Redisson's) is re-checked every {@code maxRecheckMillis}. Before {@link #start}.
     */
    RedisLockAcquire recheckAtHolderExpiry() {
        this.holderExpiry = true;
        return this;
    }

    /** Told once per refused SUBSCRIBE (an ACL without channel access) before the wait falls back to re-checks. */
    RedisLockAcquire onSubscriptionRefused(java.util.function.Consumer<Throwable> listener) {
        this.onSubscriptionRefused = listener;
        return this;
    }

    CompletableFuture<Grant> start() {
        if (lingerMillis > 0) {
            // Taken before the first attempt: a release published after it is counted, so no second attempt.
            channel = subscriptions.acquireIfSubscribed(channelName);
        }
        attempt();
        if (!result.isDone()) {
            request.cancelled().thenRun(this);
        }
        return result;
    }

    private void attempt() {
        long seen = channel == null ? 0 : channel.messageCount();
        long sentAt = request.time().nanoTime();
        boolean willWait = !request.isExpired() && !request.isCancelled();
        attempt.apply(willWait).whenComplete((reply, error) -> onReply(reply, error, sentAt, seen, willWait));
    }

    private void onReply(Long reply, Throwable error, long sentAt, long seen, boolean queued) {
        if (error != null) {
            finish(queued);
            result.completeExceptionally(error);
            return;
        }
        long value = reply;
        if (value > 0) {
            finish(false);
            result.complete(new Grant(request, value, sentAt, backendState));
            return;
        }
        if (request.isCancelled() || request.isExpired()) {
            finish(queued);
            result.complete(null);
            return;
        }
        if (channel == null && !pollOnly) {
            channel = subscriptions.acquire(channelName);
            channel.subscribed().whenComplete((ok, subscribeError) -> {
                if (subscribeError == null) {
                    attempt();
                } else if (RedisErrors.unwrap(subscribeError) instanceof LockUnavailableException) {
                    finish(true);
                    result.completeExceptionally(subscribeError);
                } else {
                    // Refused (an ACL without channel access): the bounded re-check still wakes us.
                    onSubscriptionRefused.accept(subscribeError);
                    UnlockSubscriptions.Channel refused = channel;
                    channel = null;
                    pollOnly = true;
                    subscriptions.release(refused);
                    attempt();
                }
            });
            return;
        }
        waitForWake(-value, seen);
    }

    private void waitForWake(long recheckMillis, long seen) {
        long gen = ++generation;
        armed.set(gen);
        UnlockSubscriptions.Channel c = channel;
        if (c != null) {
            c.wakeOnNextMessage(this);
        }
        long millis = recheckMillis <= 0 ? maxRecheckMillis
                : holderExpiry ? recheckMillis + 1 : Math.min(recheckMillis + 1, maxRecheckMillis);
        long delay = Math.min(TimeUnit.MILLISECONDS.toNanos(millis), request.remainingNanos());
        ScheduledFuture<?> t;
        try {
            t = scheduler.schedule(() -> fire(gen), delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            return; // closing: the engine cancels this request
        }
        timer = t;
        if (armed.get() != gen) {
            t.cancel(false);
            return;
        }
        if ((c != null && c.messageCount() != seen) || request.isCancelled()) {
            fire(gen);
        }
    }

    @Override
    public void run() {
        long gen = armed.get();
        if (gen != 0) {
            fire(gen);
        }
    }

    private void fire(long gen) {
        if (!armed.compareAndSet(gen, 0)) {
            return;
        }
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
        if (request.isCancelled() || request.isExpired()) {
            finish(true);
            result.complete(null);
            return;
        }
        attempt();
    }

    private void finish(boolean abandoned) {
        armed.set(0);
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
        UnlockSubscriptions.Channel c = channel;
        if (c != null) {
            channel = null;
            c.forget(this);
            subscriptions.release(c, lingerMillis);
        }
        if (abandoned && onAbandon != null) {
            onAbandon.run();
        }
    }
}
