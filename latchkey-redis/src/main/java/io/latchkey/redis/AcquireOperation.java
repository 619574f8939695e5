package io.latchkey.redis;

import io.latchkey.LockUnavailableException;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One {@link RedisLockOps#acquire} from first attempt to outcome, without a thread of its own: every step is a
 * callback of a Redis reply, an unlock message or the client's timer.
 *
 * <ol>
 *   <li>Attempt (one EVALSHA). Taken: complete with the grant.</li>
 *   <li>Busy for the first time: subscribe to the lock's unlock channel, and only once the subscription is
 *   confirmed attempt again, so that a release between the failed attempt and the subscription is not
 *   missed.</li>
 *   <li>Busy while subscribed: arm a wake-up for the next unlock message and a timer at the holder's remaining
 *   lease (the bound on a lost message) or the deadline, whichever is sooner; the first to fire attempts
 *   again.</li>
 *   <li>Deadline passed or request cancelled: complete with {@code null}. Errors: complete exceptionally.</li>
 * </ol>
 * The subscription is dropped when the operation ends.
 */
final class AcquireOperation implements Runnable {

    private final RedisLockOps ops;
    private final AcquireRequest request;
    private final LockKeys keys;
    private final CompletableFuture<Grant> result = new CompletableFuture<>();
    /** The generation of the armed wait, 0 when not waiting; a wake-up fires only the wait it was armed for. */
    private final AtomicLong armed = new AtomicLong();
    private long generation;
    private UnlockSubscriptions.Channel channel;
    /** Set when the server refused the subscription: only the re-check at the holder's lease wakes us. */
    private boolean pollOnly;
    private volatile ScheduledFuture<?> timer;

    AcquireOperation(RedisLockOps ops, AcquireRequest request, LockKeys keys) {
        this.ops = ops;
        this.request = request;
        this.keys = keys;
    }

    CompletableFuture<Grant> start() {
        attempt();
        if (!result.isDone()) {
            request.cancelled().thenRun(this);
        }
        return result;
    }

    private void attempt() {
        long seenMessages = channel == null ? 0 : channel.messageCount();
        long sentAt = request.time().nanoTime();
        ops.tryAcquire(keys, request).whenComplete((reply, error) -> onReply(reply, error, sentAt, seenMessages));
    }

    private void onReply(Long reply, Throwable error, long sentAt, long seenMessages) {
        if (error != null) {
            finish();
            result.completeExceptionally(error);
            return;
        }
        long value = reply;
        if (value > 0) {
            finish();
            result.complete(new Grant(request, value, sentAt, keys));
            return;
        }
        if (request.isCancelled() || request.isExpired()) {
            finish();
            result.complete(null);
            return;
        }
        if (channel == null && !pollOnly) {
            channel = ops.subscriptions().acquire(keys.channel);
            channel.subscribed().whenComplete((ok, subscribeError) -> {
                if (subscribeError == null) {
                    attempt();
                } else if (RedisErrors.unwrap(subscribeError) instanceof LockUnavailableException) {
                    finish();
                    result.completeExceptionally(subscribeError);
                } else {
                    // Refused (an ACL without channel access): wait for the holder's lease instead.
                    ops.subscriptionRefused(keys.channel, subscribeError);
                    UnlockSubscriptions.Channel refused = channel;
                    channel = null;
                    pollOnly = true;
                    ops.subscriptions().release(refused);
                    attempt();
                }
            });
            return;
        }
        waitForWake(-value, seenMessages);
    }

    private void waitForWake(long holderTtlMillis, long seenMessages) {
        long gen = ++generation;
        armed.set(gen);
        UnlockSubscriptions.Channel c = channel;
        if (c != null) {
            c.wakeOnNextMessage(this);
        }
        long recheckNanos = holderTtlMillis > 0
                ? TimeUnit.MILLISECONDS.toNanos(holderTtlMillis + 1)
                : ops.noTtlRecheckNanos();
        long delay = Math.min(recheckNanos, request.remainingNanos());
        ScheduledFuture<?> t;
        try {
            t = ops.scheduler().schedule(() -> fire(gen), delay, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // The client is closing; the engine cancels this request.
            return;
        }
        timer = t;
        if (armed.get() != gen) {
            // Already woken (message or cancellation) before the timer existed.
            t.cancel(false);
            return;
        }
        if ((c != null && c.messageCount() != seenMessages) || request.isCancelled()) {
            // A message arrived after the attempt was sent (maybe the release that made the lock free).
            fire(gen);
        }
    }

    /** Wake-up by an unlock message or by cancellation. */
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
            finish();
            result.complete(null);
            return;
        }
        attempt();
    }

    private void finish() {
        armed.set(0);
        ScheduledFuture<?> t = timer;
        if (t != null) {
            t.cancel(false);
        }
        UnlockSubscriptions.Channel c = channel;
        if (c != null) {
            channel = null;
            c.forget(this);
            ops.subscriptions().release(c);
        }
    }
}
