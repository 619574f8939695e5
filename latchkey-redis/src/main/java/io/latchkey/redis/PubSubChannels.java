package io.latchkey.redis;

import io.latchkey.core.RemoteCountOps;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * The client's one subscription mechanism: every wake-up channel of every primitive (locks and counted primitives
 * alike) on ONE pub/sub connection (Redis multiplexes any number of channels on it). The engine
 * {@linkplain io.latchkey.core.RemoteLockOps#subscribe subscribes} to a name while someone of the client waits for it;
 * each such subscription is one reference to the name's channel, which is subscribed with the first and unsubscribed
 * with the last, and one listener told at every message.
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

    private final StatefulRedisPubSubConnection<String, String> connection;
    private final ScriptExecutor executor;
    private final boolean sharded;
    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    // Orders SUBSCRIBE/UNSUBSCRIBE per channel with the reference counts. Held only while counting and
    // enqueueing the async command on the connection, never while waiting for a reply.
    private final ReentrantLock lock = new ReentrantLock();
    /** How long a channel without subscriptions stays subscribed. */
    static final long LINGER_MILLIS = 1_000;
    /** At most this many channels linger at a time. */
    static final int MAX_LINGERING = 256;
    /** Channels without references whose unsubscribe is scheduled; guarded by {@link #lock}. */
    private int lingering;

    PubSubChannels(StatefulRedisPubSubConnection<String, String> connection, ScriptExecutor executor) {
        this.connection = connection;
        this.executor = executor;
        this.sharded = executor.sharded();
        connection.addListener(this);
    }

    /** {@link #subscribe(String, Predicate, Runnable)} for every message. */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String channel, Runnable changed) {
        return subscribe(channel, null, changed);
    }

    /**
     * Calls {@code changed} at every message on {@code channel} that {@code filter} accepts (every one if it is
     * {@code null}), and at every re-check this class asks for (after a reconnect or a moved slot), until the
     * subscription is closed. The future completes once the server confirmed the channel, or fails (the reference is
     * then dropped again) if the server refused it or did not answer.
     */
    CompletableFuture<RemoteCountOps.Subscription> subscribe(String channel, Predicate<String> filter,
                                                            Runnable changed) {
        Listener listener = new Listener(filter, changed);
        Channel c;
        lock.lock();
        try {
            c = channels.get(channel);
            if (c != null && c.references == 0) {
                lingering--;
                c.lingerGeneration++; // its scheduled unsubscribe is void now
                if (c.subscribed.isCompletedExceptionally()) {
                    channels.remove(channel, c); // it failed while it lingered: subscribe afresh
                    c = null;
                }
            }
            if (c == null) {
                c = new Channel(channel);
                channels.put(channel, c);
                c.subscribed = sharded
                        ? executor.call(() -> connection.async().ssubscribe(channel), "SSUBSCRIBE " + channel)
                        : executor.call(() -> connection.async().subscribe(channel), "SUBSCRIBE " + channel);
            }
            c.references++;
            c.listeners.add(listener);
        } finally {
            lock.unlock();
        }
        Channel subscribed = c;
        AtomicBoolean closed = new AtomicBoolean();
        RemoteCountOps.Subscription subscription = () -> {
            if (closed.compareAndSet(false, true)) {
                release(subscribed, listener);
            }
        };
        return c.subscribed.whenComplete((ok, error) -> {
            if (error != null) {
                subscription.close();
            }
        }).thenApply(ok -> subscription);
    }

    private void release(Channel c, Listener listener) {
        lock.lock();
        try {
            c.listeners.remove(listener);
            if (--c.references != 0 || channels.get(c.name) != c) {
                return;
            }
            if (!sharded && lingering < MAX_LINGERING && !c.subscribed.isCompletedExceptionally()) {
                long generation = ++c.lingerGeneration;
                try {
                    executor.scheduler().schedule(() -> endLinger(c, generation), LINGER_MILLIS,
                            TimeUnit.MILLISECONDS);
                    lingering++;
                    return;
                } catch (RejectedExecutionException e) {
                    // closing: unsubscribe now
                }
            }
            unsubscribeLocked(c);
        } finally {
            lock.unlock();
        }
    }

    private void endLinger(Channel c, long generation) {
        lock.lock();
        try {
            if (c.references == 0 && c.lingerGeneration == generation && channels.get(c.name) == c) {
                lingering--;
                unsubscribeLocked(c);
            }
        } finally {
            lock.unlock();
        }
    }

    private void unsubscribeLocked(Channel c) {
        if (!channels.remove(c.name, c)) {
            return;
        }
        // Fire and forget: a failure leaves a subscription whose messages nobody listens to.
        try {
            if (sharded) {
                connection.async().sunsubscribe(c.name);
            } else {
                connection.async().unsubscribe(c.name);
            }
        } catch (RuntimeException e) {
            // The connection is closing: its subscriptions end with it.
        }
    }

    /** How many channels someone of this client listens to now, lingering ones not counted (for tests and metrics). */
    int size() {
        lock.lock();
        try {
            int n = 0;
            for (Channel c : channels.values()) {
                if (c.references > 0) {
                    n++;
                }
            }
            return n;
        } finally {
            lock.unlock();
        }
    }

    /** How many channels are subscribed at the server now, lingering ones included (for tests). */
    int subscribedAtServer() {
        return channels.size();
    }

    /**
     * Tells every listener to look again: after the pub/sub connection came back, messages sent while it was down are
     * lost, so everyone re-checks now rather than at its next re-check.
     */
    void wakeAll() {
        for (Channel c : channels.values()) {
            deliver(c, null);
        }
    }

    /**
     * Delivers {@code message} to the listeners of {@code channel} as if the server had sent it, if this client has
     * any: for a release that knows that the next in line waits in this client, and so publishes nothing for it.
     */
    void deliverLocally(String channel, String message) {
        message(channel, message);
    }

    @Override
    public void smessage(String channel, String message) {
        message(channel, message);
    }

    /**
     * The server drops shard subscriptions of a slot that moved to another master (resharding, failover). A channel
     * that still has listeners here is subscribed again (Lettuce routes it to the slot's new master; retried every
     * 100 ms for up to 10 s while the topology settles) and its listeners look again at once and again once the new
     * subscription is confirmed, so a release while nobody listened is not missed. After our own SUNSUBSCRIBE the
     * channel is no longer registered, or registered anew by a later subscription (then subscribing again is
     * harmless).
     */
    @Override
    public void sunsubscribed(String channel, long count) {
        Channel c = channels.get(channel); // shard channels never linger: one here has listeners
        if (c != null) {
            deliver(c, null);
            resubscribe(c, 0);
        }
    }

    private void resubscribe(Channel c, int attempt) {
        if (channels.get(c.name) != c) {
            return;
        }
        executor.<Void>call(() -> connection.async().ssubscribe(c.name), "SSUBSCRIBE " + c.name)
                .whenComplete((ok, error) -> {
                    if (error == null) {
                        deliver(c, null);
                    } else if (attempt < 100) {
                        try {
                            executor.scheduler().schedule(() -> resubscribe(c, attempt + 1), 100,
                                    TimeUnit.MILLISECONDS);
                        } catch (RejectedExecutionException e) {
                            // closing
                        }
                    }
                });
    }

    @Override
    public void message(String channel, String message) {
        Channel c = channels.get(channel);
        if (c != null) {
            deliver(c, message);
        }
    }

    /** Tells the listeners of {@code c}; a {@code null} message (a re-check) passes every filter. */
    private static void deliver(Channel c, String message) {
        for (Listener l : c.listeners) {
            if (message == null || l.filter == null || l.filter.test(message)) {
                l.changed.run();
            }
        }
    }

    /** One subscription's listener; identity matters (two subscriptions may pass equal arguments). */
    private static final class Listener {
        final Predicate<String> filter;
        final Runnable changed;

        Listener(Predicate<String> filter, Runnable changed) {
            this.filter = filter;
            this.changed = changed;
        }
    }

    /** One subscribed channel. */
    private static final class Channel {
        final String name;
        final CopyOnWriteArrayList<Listener> listeners = new CopyOnWriteArrayList<>();
        volatile CompletableFuture<Void> subscribed;
        private int references; // guarded by PubSubChannels.lock
        private long lingerGeneration; // guarded by PubSubChannels.lock: bumped when it lingers or is taken again

        Channel(String name) {
            this.name = name;
        }
    }
}
