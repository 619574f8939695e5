package io.latchkey.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The client's subscriptions to unlock channels, all on ONE pub/sub connection (Redis multiplexes any number of
 * channels on it; there is no pool of subscription slots to run out of). A channel is subscribed while at least
 * one local waiter needs it and unsubscribed when the last one leaves, or, if released with a linger time (a fair
 * lock's per-owner channel, which the same thread needs again at its next wait), that long after, unless a waiter
 * took it again meanwhile. At most {@link #MAX_LINGERING} channels linger at a time; beyond that they go at once.
 *
 * <p>Each channel counts the messages it received. A waiter notes the count before its acquire attempt and
 * compares after arming its wake-up: a release whose message overtook the attempt's reply is then not missed.
 *
 * <p>On a Redis Cluster of Redis 7 or later the channels are shard channels ({@code SSUBSCRIBE}, matching the
 * scripts' {@code SPUBLISH}): each lives on the node of its hash slot, where Lettuce's cluster pub/sub connection
 * routes the subscription, so a wake-up crosses no cluster bus. Otherwise (standalone, or an older cluster, whose
 * {@code PUBLISH} reaches every node) they are classic channels.
 */
final class UnlockSubscriptions extends RedisPubSubAdapter<String, String> {

    /** Channels kept subscribed without a waiter, waiting for their owner's next wait. */
    static final int MAX_LINGERING = 256;

    private final StatefulRedisPubSubConnection<String, String> connection;
    private final ScriptExecutor executor;
    private final boolean sharded;
    private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
    // Orders SUBSCRIBE/UNSUBSCRIBE per channel with the reference counts. Held only while counting and
    // enqueueing the async command on the connection, never while waiting for a reply.
    private final ReentrantLock lock = new ReentrantLock();
    /** Channels without references whose unsubscribe is scheduled; guarded by {@link #lock}. */
    private int lingering;

    UnlockSubscriptions(StatefulRedisPubSubConnection<String, String> connection, ScriptExecutor executor) {
        this.connection = connection;
        this.executor = executor;
        this.sharded = executor.sharded();
        connection.addListener(this);
    }

    /** Adds a reference to {@code channel}, subscribing if it is the first. Pair with {@link #release}. */
    Channel acquire(String channel) {
        lock.lock();
        try {
            Channel c = channels.get(channel);
            if (c != null && c.lingering && c.subscribed.isCompletedExceptionally()) {
                // its subscription failed while it lingered: subscribe afresh
                reviveLocked(c);
                channels.remove(channel, c);
                c = null;
            }
            if (c == null) {
                c = new Channel(channel);
                channels.put(channel, c);
                c.subscribed = sharded
                        ? executor.call(() -> connection.async().ssubscribe(channel), "SSUBSCRIBE " + channel)
                        : executor.call(() -> connection.async().subscribe(channel), "SUBSCRIBE " + channel);
            }
            reviveLocked(c);
            c.references++;
            return c;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Like {@link #acquire}, but only if {@code channel} is subscribed already and confirmed (a lingering one): a
     * waiter that holds it before its first attempt needs no second attempt after subscribing. {@code null}
     * otherwise, without subscribing.
     */
    Channel acquireIfSubscribed(String channel) {
        lock.lock();
        try {
            Channel c = channels.get(channel);
            CompletableFuture<Void> s = c == null ? null : c.subscribed;
            if (s == null || !s.isDone() || s.isCompletedExceptionally()) {
                return null;
            }
            reviveLocked(c);
            c.references++;
            return c;
        } finally {
            lock.unlock();
        }
    }

    private void reviveLocked(Channel c) {
        if (c.lingering) {
            c.lingering = false;
            lingering--;
        }
    }

    /** Drops a reference taken by {@link #acquire}; the last one unsubscribes. */
    void release(Channel c) {
        release(c, 0);
    }

    /**
     * Drops a reference taken by {@link #acquire}; when it was the last, the channel stays subscribed for
     * {@code lingerMillis} (if positive and fewer than {@link #MAX_LINGERING} linger) and is unsubscribed then
     * unless taken again, otherwise at once.
     */
    void release(Channel c, long lingerMillis) {
        lock.lock();
        try {
            if (--c.references != 0 || channels.get(c.name) != c) {
                return;
            }
            if (lingerMillis > 0 && lingering < MAX_LINGERING && !c.subscribed.isCompletedExceptionally()) {
                try {
                    c.lingerGeneration++;
                    long generation = c.lingerGeneration;
                    executor.scheduler().schedule(() -> endLinger(c, generation), lingerMillis,
                            TimeUnit.MILLISECONDS);
                    c.lingering = true;
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
            if (c.lingering && c.lingerGeneration == generation && c.references == 0) {
                c.lingering = false;
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

    /** How many channels are subscribed now (for tests and metrics). */
    int size() {
        return channels.size();
    }

    /**
     * Wakes every waiter as if its channel had a message: after the pub/sub connection came back, messages sent
     * while it was down are lost, so everyone re-checks now rather than at its holder's lease.
     */
    void wakeAll() {
        for (Channel c : channels.values()) {
            message(c.name, "reconnected");
        }
    }

    /**
     * Wakes the waiters of {@code channel} as its message would, if this client has any: for a release that knows
     * that the next in line waits in this client, and so publishes nothing for it.
     */
    void wakeLocally(String channel) {
        message(channel, "released here");
    }

    @Override
    public void smessage(String channel, String message) {
        message(channel, message);
    }

    /**
     * The server drops shard subscriptions of a slot that moved to another master (resharding, failover). A channel
     * that still has waiters here is subscribed again (Lettuce routes it to the slot's new master; retried every
     * 100 ms for up to 10 s while the topology settles) and its waiters re-check at once and again once the new
     * subscription is confirmed, so a release while nobody listened is not missed. After our own SUNSUBSCRIBE the
     * channel is no longer registered, or registered anew by a later waiter (then subscribing again is harmless).
     */
    @Override
    public void sunsubscribed(String channel, long count) {
        Channel c = channels.get(channel);
        if (c != null) {
            message(channel, "unsubscribed");
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
                        message(c.name, "resubscribed");
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
            c.messages.incrementAndGet();
            Runnable waker;
            while ((waker = c.wakers.poll()) != null) {
                waker.run();
            }
        }
    }

    /** One subscribed channel. */
    static final class Channel {
        final String name;
        final AtomicLong messages = new AtomicLong();
        final ConcurrentLinkedQueue<Runnable> wakers = new ConcurrentLinkedQueue<>();
        volatile CompletableFuture<Void> subscribed;
        // guarded by UnlockSubscriptions.lock
        private int references;
        private boolean lingering;
        private long lingerGeneration;

        Channel(String name) {
            this.name = name;
        }

        /** Completes once the server confirmed the subscription. */
        CompletableFuture<Void> subscribed() {
            return subscribed;
        }

        /** The number of messages received so far. */
        long messageCount() {
            return messages.get();
        }

        /** Runs {@code waker} once, at the next message (it may then be re-added for the message after). */
        void wakeOnNextMessage(Runnable waker) {
            wakers.add(waker);
        }

        void forget(Runnable waker) {
            wakers.remove(waker);
        }
    }
}
