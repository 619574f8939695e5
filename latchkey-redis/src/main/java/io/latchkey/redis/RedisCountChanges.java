package io.latchkey.redis;

import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The wake-ups of the counted primitives ({@link RemoteCountOps#subscribe}): one reference to the primitive's
 * pub/sub channel on the client's {@link UnlockSubscriptions} (shared with the locks' waiters, re-subscribed after a
 * reconnect or a moved slot, which also wakes every subscriber), and a waker that calls {@code changed} at every
 * message. The subscription future completes once the server confirmed the channel; closing it drops the reference
 * (the last one unsubscribes).
 */
final class RedisCountChanges {

    private RedisCountChanges() {
    }

    static CompletableFuture<RemoteCountOps.Subscription> subscribe(UnlockSubscriptions subscriptions,
                                                                    String channelName, Runnable changed) {
        UnlockSubscriptions.Channel channel = subscriptions.acquire(channelName);
        AtomicBoolean closed = new AtomicBoolean();
        Runnable waker = new Runnable() {
            @Override
            public void run() {
                if (!closed.get()) {
                    channel.wakeOnNextMessage(this); // again for the message after
                    changed.run();
                }
            }
        };
        channel.wakeOnNextMessage(waker);
        RemoteCountOps.Subscription subscription = () -> {
            if (closed.compareAndSet(false, true)) {
                channel.forget(waker);
                subscriptions.release(channel);
            }
        };
        return channel.subscribed().whenComplete((ok, error) -> {
            if (error != null) {
                subscription.close();
            }
        }).thenApply(ok -> subscription);
    }
}
