package io.latchkey.redis;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Spares a fair lock's waiters that are not next a round trip when they are woken. The engine keeps one subscription
 * per name and wakes every waiter of the name at a push, but a release names the one head of the server's queue: the
 * other waiters of this client would only ask to be told "queued" again. So the head last named on a name's channel
 * is remembered while the name is subscribed, and a waiter that is not that head and asked the server less than
 * {@code refreshNanos} ago is answered "queued" without asking; a waiter still asks at least every
 * {@code refreshNanos} (which keeps its place), and the head always asks.
 *
 * <p>State: one entry per subscribed name (dropped with the subscription) and one per waiting owner (dropped at its
 * grant or withdrawal; an owner that neither got nor withdrew, because its attempt failed, is dropped at its next
 * withdrawal by the engine, which follows every failed attempt of a fair lock).
 */
final class FairHeads {

    private final long refreshNanos;
    /** Lock name → the owner last named the head on its channel. */
    private final ConcurrentHashMap<String, String> heads = new ConcurrentHashMap<>();
    /** Waiting owner → when it last asked the server ({@link System#nanoTime()}). */
    private final ConcurrentHashMap<String, Long> asked = new ConcurrentHashMap<>();

    FairHeads(long refreshNanos) {
        this.refreshNanos = refreshNanos;
    }

    /** A message (or a release's reply) named {@code head} as next on {@code name}. */
    void named(String name, String head) {
        heads.put(name, head);
    }

    /** The name is no longer subscribed: what was named on it may be stale. */
    void unsubscribed(String name) {
        heads.remove(name);
    }

    /**
     * {@return how long {@code owner}, already queued, may wait before it asks again without asking now (a positive
     * number of nanoseconds), or 0 if it should ask now}
     */
    long spare(String name, String owner, long now) {
        String head = heads.get(name);
        Long last = asked.get(owner);
        if (head == null || head.equals(owner) || last == null) {
            return 0;
        }
        long left = refreshNanos - (now - last);
        return left > 0 ? left : 0;
    }

    /** {@code owner} asks the server now. */
    void asking(String owner, long now) {
        asked.put(owner, now);
    }

    /** {@code owner} waits no more (granted or withdrawn). */
    void done(String owner) {
        asked.remove(owner);
    }

    /** Entries kept now (for tests). */
    int size() {
        return heads.size() + asked.size();
    }
}
