package io.latchkey.redis;

import io.latchkey.core.PushRegistry;
import io.latchkey.core.RemoteCountOps;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.RedisPubSubListener;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Every wake-up channel of the client on ONE pub/sub connection, its subscribers kept by a {@link PushRegistry}
 * (which subscribes the channel with the first and unsubscribes it after the last). On a Redis Cluster of Redis 7 or
 * later the channels are shard channels ({@code SSUBSCRIBE}, matching the scripts' {@code SPUBLISH}), routed to the
 * node of their slot, so a wake-up crosses no cluster bus; otherwise classic channels.
 *
 * <p>A classic channel whose last subscription closed lingers {@value #LINGER_MILLIS} ms (at most
 * {@value #MAX_LINGERING} at a time): the engine subscribes whenever a waiter starts and closes when the last one
 * leaves, so without it a busy name would cost a SUBSCRIBE and an UNSUBSCRIBE per acquire. Shard channels do not
 * linger: a shard subscription follows its slot when the slot moves, and one that nobody listens to should not (in a
 * resharding test a lingering shard channel delayed the new master's subscription of a waiter beyond 20 s).
 */
final class PubSubChannels extends RedisPubSubAdapter<String, String> implements RedisConnectionStateListener {

    static final long LINGER_MILLIS = 1_000;
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
        connection.addListener((RedisPubSubListener<String, String>) this);
    }

    /** {@link #subscribe(String, Predicate, Runnable)} for every message. */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String channel, Runnable changed) {
        return channels.subscribe(channel, changed);
    }

    /**
     * Calls {@code changed} at every message on {@code channel} that {@code filter} accepts (every one if
     * {@code null}) and at every re-check asked for here (a reconnect, a moved slot), until closed. The future
     * completes once the server confirmed the channel, or fails (nothing stays subscribed).
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
                var unused = sharded ? connection.async().sunsubscribe(channel)
                        : connection.async().unsubscribe(channel);
            } catch (RuntimeException e) {
                // The connection is closing: its subscriptions end with it.
            }
        });
    }

    /** How many channels someone of this client listens to now, lingering ones not counted. */
    int size() {
        return channels.size();
    }

    /**
     * After a reconnect of the pub/sub connection (on a cluster: of any node connection, where the subscriptions
     * live), every listener looks again once Lettuce has likely re-subscribed: messages sent meanwhile are lost.
     */
    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> reconnected, SocketAddress address) {
        if (reconnected == connection || executor.cluster()) {
            try {
                executor.scheduler().schedule(channels::fireAll, 100, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                // closing
            }
        }
    }

    /** Delivers {@code message} to this client's listeners of {@code channel} as if the server had sent it. */
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
     * The server drops shard subscriptions of a slot that moved to another master. A channel that still has listeners
     * is subscribed again (routed to the slot's new master; retried every 100 ms for up to 10 s while the topology
     * settles), and its listeners look again at once and once it is confirmed, so a release while nobody listened is
     * not missed. After our own SUNSUBSCRIBE the channel has no listeners (or a later subscription's: harmless).
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
