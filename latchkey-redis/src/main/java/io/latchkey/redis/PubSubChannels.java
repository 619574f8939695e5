package io.latchkey.redis;

import io.latchkey.core.PushRegistry;
import io.latchkey.core.RemoteCountOps;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The client's one subscription mechanism: every wake-up channel of every primitive (locks and counted primitives
 * alike) on ONE pub/sub connection (Redis multiplexes any number of channels on it). The engine
 * {@linkplain io.latchkey.core.RemoteLockOps#subscribe subscribes} to a name while someone of the client waits for it;
 * the channel's subscribers are kept by a {@link PushRegistry}, which subscribes the channel with the first and
 * unsubscribes it after the last, and tells each subscriber at every message.
 *
 * <p>On a Redis Cluster of Redis 7 or later the channels are shard channels ({@code SSUBSCRIBE}, matching the
 * scripts' {@code SPUBLISH}): each lives on the node of its hash slot, where Lettuce's cluster pub/sub connection
 * routes the subscription, so a wake-up crosses no cluster bus. Otherwise (standalone, or an older cluster, whose
 * {@code PUBLISH} reaches every node) they are classic channels.
 *
 * <p>A channel whose last subscription closed stays subscribed for {@value #LINGER_MILLIS} ms (at most
 * {@value #MAX_LINGERING} channels at a time; beyond that they go at once) and is unsubscribed then unless someone
 * subscribed again: the engine subscribes whenever a waiter starts and closes when the last one leaves, so without it
 * a busy name would cost a SUBSCRIBE and an UNSUBSCRIBE per acquire. Shard channels do not linger: a shard
 * subscription follows its slot when the slot moves, and one that nobody listens to should not (in a resharding test
 * a lingering shard channel delayed the new master's subscription of a waiter beyond 20 s, cause not yet found).
 */
final class PubSubChannels extends RedisPubSubAdapter<String, String> {

    /** How long a channel without subscriptions stays subscribed. */
    static final long LINGER_MILLIS = 1_000;
    /** At most this many channels linger at a time. */
    static final int MAX_LINGERING = 256;

    private final StatefulRedisPubSubConnection<String, String> connection;
    private final ScriptExecutor executor;
    private final boolean sharded;
    private final PushRegistry<String> channels;

    PubSubChannels(StatefulRedisPubSubConnection<String, String> connection, ScriptExecutor executor) {
        this.connection = connection;
        this.executor = executor;
        this.sharded = executor.sharded();
        this.channels = sharded ? new PushRegistry<>(this::open)
                : new PushRegistry<>(this::open, executor.scheduler(), LINGER_MILLIS, MAX_LINGERING);
        connection.addListener(this);
    }

    /** {@link #subscribe(String, Predicate, Runnable)} for every message. */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String channel, Runnable changed) {
        return channels.subscribe(channel, changed);
    }

    /**
     * Calls {@code changed} at every message on {@code channel} that {@code filter} accepts (every one if it is
     * {@code null}), and at every re-check this class asks for (after a reconnect or a moved slot), until the
     * subscription is closed. The future completes once the server confirmed the channel, or fails (the subscription
     * is then dropped again) if the server refused it or did not answer.
     */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String channel, Predicate<String> filter,
                                                            Runnable changed) {
        return channels.subscribe(channel, filter, changed);
    }

    /** Subscribes {@code channel} at the server; closing the answer unsubscribes it (fire and forget). */
    private CompletableFuture<RemoteCountOps.Subscription> open(String channel) {
        CompletableFuture<Void> subscribed = sharded
                ? executor.call(() -> connection.async().ssubscribe(channel), "SSUBSCRIBE " + channel)
                : executor.call(() -> connection.async().subscribe(channel), "SUBSCRIBE " + channel);
        return subscribed.thenApply(ok -> () -> {
            // A failure leaves a subscription whose messages nobody listens to.
            try {
                if (sharded) {
                    connection.async().sunsubscribe(channel);
                } else {
                    connection.async().unsubscribe(channel);
                }
            } catch (RuntimeException e) {
                // The connection is closing: its subscriptions end with it.
            }
        });
    }

    /** How many channels someone of this client listens to now, lingering ones not counted (for tests and metrics). */
    int size() {
        return channels.size();
    }

    /**
     * Tells every listener to look again: after the pub/sub connection came back, messages sent while it was down are
     * lost, so everyone re-checks now rather than at its next re-check.
     */
    void wakeAll() {
        channels.fireAll();
    }

    /**
     * Delivers {@code message} to the listeners of {@code channel} as if the server had sent it, if this client has
     * any: for a release that knows that the next in line waits in this client, and so publishes nothing for it.
     */
    void deliverLocally(String channel, String message) {
        channels.fire(channel, message);
    }

    @Override
    public void smessage(String channel, String message) {
        channels.fire(channel, message);
    }

    @Override
    public void message(String channel, String message) {
        channels.fire(channel, message);
    }

    /**
     * The server drops shard subscriptions of a slot that moved to another master (resharding, failover). A channel
     * that still has listeners here is subscribed again (Lettuce routes it to the slot's new master; retried every
     * 100 ms for up to 10 s while the topology settles) and its listeners look again at once and again once the new
     * subscription is confirmed, so a release while nobody listened is not missed. After our own SUNSUBSCRIBE the
     * channel has no listeners, or listeners of a later subscription (then subscribing again is harmless).
     */
    @Override
    public void sunsubscribed(String channel, long count) {
        if (channels.hasSubscribers(channel)) { // shard channels never linger
            channels.fire(channel, null);
            resubscribe(channel, 0);
        }
    }

    private void resubscribe(String channel, int attempt) {
        if (!channels.hasSubscribers(channel)) {
            return;
        }
        executor.<Void>call(() -> connection.async().ssubscribe(channel), "SSUBSCRIBE " + channel)
                .whenComplete((ok, error) -> {
                    if (error == null) {
                        channels.fire(channel, null);
                    } else if (attempt < 100) {
                        try {
                            executor.scheduler().schedule(() -> resubscribe(channel, attempt + 1), 100,
                                    TimeUnit.MILLISECONDS);
                        } catch (RejectedExecutionException e) {
                            // closing
                        }
                    }
                });
    }
}
