package io.latchkey.core;

import io.latchkey.LockUnavailableException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The push subscriptions of one client, by name: who waits for changes of which name (a Redis channel, a ZooKeeper
 * path, an etcd key prefix, a row key), and the one server-side subscription each such name needs. Backends implement
 * {@link RemoteLockOps#subscribe} and {@link RemoteCountOps#subscribe} with {@link #subscribe}, and report what the
 * server pushed with {@link #fire} (one name) or {@link #fireAll} (a reconnect, after which anything may have changed
 * unseen).
 *
 * <h2>Server side</h2>
 * A registry made with a {@link Source} opens a name's server-side subscription with its first subscriber and closes
 * it after its last one left: one {@code SUBSCRIBE}, watch or listener per name and client, however many waiters share
 * it. A name's next opening starts only after its previous closing was issued, so a server never sees them out of
 * order. A subscription's future completes once the name's opening took effect; if the opening fails, the future
 * fails and the next subscriber opens the name afresh. With a linger time, a name whose last subscriber left stays
 * open that long (and at most that many names at a time), so a busy name does not cost an opening and a closing per
 * wait. A registry made without a source has no server side: subscriptions take effect at once.
 *
 * <h2>Threads</h2>
 * Thread-safe. {@link #fire} and {@link #fireAll} run the subscribers' callbacks on the caller's thread (a driver's
 * event or I/O thread), never under a lock of this class; a callback must be fast and must not block, and one that
 * throws is logged and the others still run. A closed subscription is told nothing more (but by a push already
 * running its callbacks). The source's {@code open} and its subscriptions' {@code close} run outside any lock of
 * this class too, on the thread of the first subscribe, the last close, the linger timer or the previous closing's
 * completion; they must not block.
 *
 * @param <M> the message type of a push ({@code String} for a channel's message, say); {@link #fire} with
 *        {@code null} tells every subscriber of the name
 */
public final class PushRegistry<M> {
    private static final Logger log = LoggerFactory.getLogger(PushRegistry.class);

    /** Opens a name's server-side subscription. */
    @FunctionalInterface
    public interface Source {
        /**
         * Opens the server-side subscription of {@code name}; called with the name's first subscriber.
         *
         * @param name the name
         * @return a future of the subscription, complete once every later change of the name will be pushed; its
         *         {@code close} is called after the name's last subscriber left (and its linger time)
         */
        CompletableFuture<RemoteCountOps.Subscription> open(String name);
    }

    private final Source source;
    private final MaintenanceScheduler timer;
    private final long lingerMillis;
    private final int maxLingering;
    /** The names with subscribers or lingering; changed under {@link #lock}, read without it by {@link #fire}. */
    private final Map<String, Topic> topics = new ConcurrentHashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    /** Guarded by lock: the closings in progress by name, which a next opening of the name waits for. */
    private final Map<String, CompletableFuture<Void>> closing = new HashMap<>();
    /** Guarded by lock. */
    private int lingering;
    /** Guarded by lock. */
    private boolean closed;

    /** A registry without a server side: subscriptions take effect at once. */
    public PushRegistry() {
        this(name -> CompletableFuture.completedFuture(() -> { }), null, 0, 0);
    }

    /**
     * A registry that opens a name's server-side subscription with its first subscriber and closes it with its last.
     *
     * @param source opens a name's subscription
     */
    public PushRegistry(Source source) {
        this(source, null, 0, 0);
    }

    /**
     * A registry whose names stay open for {@code lingerMillis} after their last subscriber left.
     *
     * @param source opens a name's subscription
     * @param timer runs the closings after the linger time; a name closes at once once it refuses tasks
     * @param lingerMillis how long a name without subscribers stays open
     * @param maxLingering at most this many names linger at a time; beyond that they close at once
     */
    public PushRegistry(Source source, MaintenanceScheduler timer, long lingerMillis, int maxLingering) {
        this.source = Objects.requireNonNull(source, "source");
        this.timer = timer;
        this.lingerMillis = lingerMillis;
        this.maxLingering = timer == null ? 0 : maxLingering;
    }

    /** {@link #subscribe(String, Predicate, Runnable)} told of every push of the name. */
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Runnable changed) {
        return subscribe(name, null, changed);
    }

    /**
     * Tells {@code changed} of every push of {@code name} whose message {@code wakes} accepts (and of every
     * {@link #fire} with a {@code null} message and {@link #fireAll}) until the subscription is closed.
     *
     * @param name the name
     * @param wakes which messages concern this subscriber; {@code null} for all
     * @param changed what to run; fast, never blocking
     * @return a future of the subscription, complete once the name's server-side subscription took effect; failed
     *         (with nothing left subscribed) if it could not be opened or this registry is closed
     */
    public CompletableFuture<RemoteCountOps.Subscription> subscribe(String name, Predicate<? super M> wakes,
                                                                    Runnable changed) {
        Objects.requireNonNull(changed, "changed");
        Topic t;
        Subscriber s;
        CompletableFuture<Void> after = null;
        boolean start = false;
        lock.lock();
        try {
            if (closed) {
                return CompletableFuture.failedFuture(new LockUnavailableException(String.format(
                        "cannot subscribe to '%s': the client is closed", name)));
            }
            t = topics.get(name);
            if (t != null && t.lingering) {
                t.lingering = false;
                t.generation++; // its scheduled closing is void now
                lingering--;
            }
            if (t == null) {
                t = new Topic(name);
                topics.put(name, t);
                after = closing.get(name);
                start = true;
            }
            s = new Subscriber(t, wakes, changed);
            t.subscribers.add(s);
        } finally {
            lock.unlock();
        }
        if (start) {
            Topic opening = t;
            if (after == null) {
                open(opening);
            } else {
                after.whenComplete((v, e) -> open(opening));
            }
        }
        return t.ready.handle((ok, e) -> {
            if (e != null) {
                s.close();
                throw e instanceof CompletionException c ? c : new CompletionException(e);
            }
            return s;
        });
    }

    private void open(Topic t) {
        CompletableFuture<RemoteCountOps.Subscription> f;
        try {
            f = Objects.requireNonNull(source.open(t.name), "source returned no future");
        } catch (RuntimeException e) {
            f = CompletableFuture.failedFuture(e);
        }
        f.whenComplete((sub, e) -> {
            if (e != null) {
                forget(t);
                t.ready.completeExceptionally(e);
            } else {
                t.ready.complete(sub);
            }
        });
    }

    /** A failed opening: the name is opened afresh by its next subscriber. */
    private void forget(Topic t) {
        lock.lock();
        try {
            if (topics.remove(t.name, t) && t.lingering) {
                lingering--;
            }
        } finally {
            lock.unlock();
        }
    }

    private void unsubscribe(Subscriber s) {
        Topic t = s.topic;
        lock.lock();
        try {
            if (!t.subscribers.remove(s) || !t.subscribers.isEmpty() || topics.get(t.name) != t) {
                return;
            }
            if (lingering < maxLingering) {
                long generation = ++t.generation;
                try {
                    timer.schedule(() -> endLinger(t, generation), lingerMillis, TimeUnit.MILLISECONDS);
                    t.lingering = true;
                    lingering++;
                    return;
                } catch (RejectedExecutionException e) {
                    // closing: close the name now
                }
            }
            removeLocked(t);
        } finally {
            lock.unlock();
        }
        closeServerSide(t);
    }

    private void endLinger(Topic t, long generation) {
        lock.lock();
        try {
            if (!t.lingering || t.generation != generation || topics.get(t.name) != t) {
                return;
            }
            t.lingering = false;
            lingering--;
            removeLocked(t);
        } finally {
            lock.unlock();
        }
        closeServerSide(t);
    }

    private void removeLocked(Topic t) {
        topics.remove(t.name, t);
        closing.put(t.name, t.closed);
    }

    /** Closes the name's server side once it is open (at once if it is), then lets its next opening start. */
    private void closeServerSide(Topic t) {
        t.ready.whenComplete((sub, e) -> {
            try {
                if (sub != null) {
                    sub.close();
                }
            } catch (RuntimeException x) {
                log.debug("closing the subscription of {} failed", t.name, x);
            } finally {
                lock.lock();
                try {
                    closing.remove(t.name, t.closed);
                } finally {
                    lock.unlock();
                }
                t.closed.complete(null);
            }
        });
    }

    /**
     * Tells the subscribers of {@code name} whose filter accepts {@code message}; with a {@code null} message, all of
     * them. Does nothing for a name without subscribers.
     *
     * @param name the name the server pushed
     * @param message what it pushed, or {@code null}: anything may have changed
     */
    public void fire(String name, M message) {
        Topic t = topics.get(name);
        if (t != null) {
            t.tell(message);
        }
    }

    /** Tells every subscriber of every name: anything may have changed unseen (a reconnect, a lost session). */
    public void fireAll() {
        for (Topic t : topics.values()) {
            t.tell(null);
        }
    }

    /**
     * {@return whether {@code name} has subscribers now}
     *
     * @param name the name
     */
    public boolean hasSubscribers(String name) {
        Topic t = topics.get(name);
        return t != null && !t.subscribers.isEmpty();
    }

    /** {@return how many names have subscribers now, lingering ones not counted} */
    public int size() {
        int n = 0;
        for (Topic t : topics.values()) {
            if (!t.subscribers.isEmpty()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Stops every push: closes the server side of every name (lingering ones too); subscriptions are told nothing
     * more, and later ones fail with {@link LockUnavailableException}. Idempotent.
     */
    public void close() {
        List<Topic> all;
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(topics.values());
            for (Topic t : all) {
                t.lingering = false;
                removeLocked(t);
            }
            lingering = 0;
        } finally {
            lock.unlock();
        }
        for (Topic t : all) {
            t.subscribers.clear();
            closeServerSide(t);
        }
    }

    /** One name: its subscribers and its server side. */
    private final class Topic {
        final String name;
        final List<Subscriber> subscribers = new CopyOnWriteArrayList<>();
        /** The server side, complete once it took effect. */
        final CompletableFuture<RemoteCountOps.Subscription> ready = new CompletableFuture<>();
        /** Complete once the server side's close was issued. */
        final CompletableFuture<Void> closed = new CompletableFuture<>();
        /** Guarded by lock. */
        boolean lingering;
        /** Guarded by lock: bumped when the name starts or stops lingering. */
        long generation;

        Topic(String name) {
            this.name = name;
        }

        void tell(M message) {
            for (Subscriber s : subscribers) {
                s.tell(message);
            }
        }
    }

    /** One subscription; identity matters (two may pass equal arguments). */
    private final class Subscriber extends AtomicBoolean implements RemoteCountOps.Subscription {
        final Topic topic;
        final Predicate<? super M> wakes;
        final Runnable changed;

        Subscriber(Topic topic, Predicate<? super M> wakes, Runnable changed) {
            this.topic = topic;
            this.wakes = wakes;
            this.changed = changed;
        }

        void tell(M message) {
            if (get()) {
                return;
            }
            try {
                if (message == null || wakes == null || wakes.test(message)) {
                    changed.run();
                }
            } catch (RuntimeException e) {
                log.warn("a wake-up of {} failed", topic.name, e);
            }
        }

        @Override
        public void close() {
            if (compareAndSet(false, true)) {
                unsubscribe(this);
            }
        }
    }
}
