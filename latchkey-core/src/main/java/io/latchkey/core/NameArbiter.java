package io.latchkey.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;

/**
 * The in-process arbitration of one lock name, for backends that arbitrate in this JVM: the {@code mem://} server,
 * and the file backend between the clients of one JVM that share one OS lock per file. It keeps the name's holds (one
 * exclusive hold, or any number of shared ones) and the queue of owners waiting for it, in arrival order.
 *
 * <p><b>Who may take it.</b> An owner may take the name ({@link #mayTake}) when the holds allow it (there are none,
 * or only shared ones and it asks for a shared hold) and no owner queued ahead of it blocks it: any owner ahead
 * blocks an exclusive request, a writer ahead blocks a shared one, so readers do not overtake a queued writer. An
 * owner that is not queued counts as behind every queued one. A downgrade (the exclusive holder asks for a shared
 * hold) is granted at once, whatever the queue. A fair lock is an exclusive hold whose waiters each queue as their own
 * owner: first in line makes it FIFO. Granting ({@link #grant}) serves the owner's queue entry; a hand-over
 * ({@link #handOver}) ends an exclusive hold and grants the next in the same step, so the name is never free in
 * between.
 *
 * <p><b>Ownership.</b> A hold belongs to the owner id of the attempt that got it and is found by owner and fencing
 * token together ({@link #find}), so that a stale grant never matches a later hold of the same owner. Reentrancy is
 * counted by the holder's engine, not here: each grant is one hold.
 *
 * <p><b>What wakes a waiter.</b> Nothing here blocks or notifies: the engine of each waiting owner waits, and the
 * backend tells the name's subscribers after every change that can let a waiter in. The methods say when that is:
 * a hold ended ({@link #remove}, {@link #expire}, {@link #clear}, a non-null {@link #withdraw}), or {@link #grant}
 * returned {@code true} (a shared hold while others queue: readers behind may come in as well).
 *
 * <p><b>Leases.</b> Each hold has a lease end on {@link System#nanoTime()}'s clock. {@link GrantState#renew} and
 * {@link GrantState#expire} race by compare-and-set, and {@link GrantState#ENDED} is final: a renewal that loses to the
 * end reports the hold lost, an end that loses to a renewal does not happen.
 *
 * <p><b>Thread safety.</b> Instances are not thread-safe: the backend guards each one by one lock (the mem server's)
 * or confines it to one thread (the lock directory's). The one exception is a {@link GrantState}'s lease end, which
 * {@link GrantState#renew} may extend from any thread. Nothing here does I/O or calls out, so it may run under a lock.
 *
 * @param <H> the backend's hold type
 */
public class NameArbiter<H extends NameArbiter.GrantState> {

    private final List<H> holds = new ArrayList<>(2);
    private final LinkedHashMap<String, Waiting> queue = new LinkedHashMap<>(4);

    /** {@return the holds, in the order granted; a read-only view} */
    public final List<H> holds() {
        return Collections.unmodifiableList(holds);
    }

    /** {@return the waiting owners and their entries, in arrival order; a read-only view} */
    public final Map<String, Waiting> queue() {
        return Collections.unmodifiableMap(queue);
    }

    /** {@return whether nothing holds or waits for the name (the backend may forget it)} */
    public boolean isIdle() {
        return holds.isEmpty() && queue.isEmpty();
    }

    /**
     * Whether {@code owner} may take the name now: a downgrade, or compatible with the holds and first in line (see
     * the class comment).
     */
    public final boolean mayTake(String owner, boolean shared) {
        if (holds.isEmpty()) {
            return first(owner, shared);
        }
        if (!shared) {
            return false;
        }
        String exclusive = exclusiveOwner();
        return exclusive == null ? first(owner, true) : exclusive.equals(owner);
    }

    /** Whether no entry ahead of {@code owner}'s (all of them, if it has none) blocks it: for a reader, no writer. */
    private boolean first(String owner, boolean shared) {
        for (Map.Entry<String, Waiting> q : queue.entrySet()) {
            if (q.getKey().equals(owner)) {
                return true;
            }
            if (!shared || !q.getValue().shared()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds {@code hold} (the caller checked {@link #mayTake}) and serves its owner's queue entry.
     *
     * @return whether the name's subscribers are to be told: a shared hold while others still queue
     */
    public final boolean grant(H hold) {
        queue.remove(hold.owner());
        holds.add(hold);
        return hold.shared() && !queue.isEmpty();
    }

    /**
     * Ends the exclusive hold {@code from} and grants {@code to} in its place, in one step (the name is never free in
     * between); serves {@code to}'s queue entry, if it had queued itself.
     *
     * @return whether {@code from} was an exclusive hold of the name (otherwise nothing changed)
     */
    public final boolean handOver(H from, H to) {
        if (from.shared() || !holds.remove(from)) {
            return false;
        }
        from.end();
        grant(to);
        return true;
    }

    /** {@return the entry of {@code owner}, queued by {@link #enqueue}, or {@code null}} */
    public final Waiting waiting(String owner) {
        return queue.get(owner);
    }

    /** Queues {@code owner} with {@code entry} unless it is queued already, and returns its entry in the queue. */
    public final Waiting enqueue(String owner, Waiting entry) {
        Waiting had = queue.putIfAbsent(owner, entry);
        return had != null ? had : entry;
    }

    /** Gives up {@code owner}'s place in the queue, and returns its entry ({@code null} if it had none). */
    public final Waiting withdraw(String owner) {
        return queue.remove(owner);
    }

    /** Empties the queue (the server's queues are lost, or the backend closes). */
    public final void clearQueue() {
        queue.clear();
    }

    /** {@return the hold of exactly this grant: same owner and same token, or {@code null}} */
    public final H find(String owner, long token) {
        for (H h : holds) {
            if (h.token() == token && h.owner().equals(owner)) {
                return h;
            }
        }
        return null;
    }

    /** {@return the owner of the exclusive hold, or {@code null} if there is none} */
    public final String exclusiveOwner() {
        for (H h : holds) {
            if (!h.shared()) {
                return h.owner();
            }
        }
        return null;
    }

    /** {@return whether an exclusive hold with fencing token {@code token} is current (a fenced write's check)} */
    public final boolean holdsExclusive(long token) {
        for (H h : holds) {
            if (!h.shared() && h.token() == token) {
                return true;
            }
        }
        return false;
    }

    /** Ends and removes {@code hold}, and returns whether it was a hold of the name. */
    public final boolean remove(H hold) {
        if (!holds.remove(hold)) {
            return false;
        }
        hold.end();
        return true;
    }

    /** Ends and removes every hold (a forced unlock), and returns the holds that ended. */
    public final List<H> clear() {
        if (holds.isEmpty()) {
            return List.of();
        }
        List<H> ended = new ArrayList<>(holds);
        holds.clear();
        ended.forEach(GrantState::end);
        return ended;
    }

    /** Removes the holds whose lease ran out by {@code now} ({@link System#nanoTime()}), and returns them. */
    public final List<H> expire(long now) {
        List<H> ended = null;
        for (int i = holds.size() - 1; i >= 0; i--) {
            H h = holds.get(i);
            if (h.expire(now)) {
                holds.remove(i);
                if (ended == null) {
                    ended = new ArrayList<>(2);
                }
                ended.add(h);
            }
        }
        return ended == null ? List.of() : ended;
    }

    /** {@return the earliest lease end of the holds ({@link System#nanoTime()}), or {@link GrantState#ENDED} if none} */
    public final long earliestLeaseEnd() {
        long earliest = GrantState.ENDED;
        for (H h : holds) {
            long end = h.leaseEnd();
            if (end != GrantState.ENDED && (earliest == GrantState.ENDED || end - earliest < 0)) {
                earliest = end;
            }
        }
        return earliest;
    }

    /**
     * One waiting owner's entry in the queue.
     *
     * @param shared whether it waits for a shared hold
     * @param ticket its place in a queue across processes (the file backend's fair wait line), or 0
     */
    public record Waiting(boolean shared, long ticket) {
    }

    /**
     * One hold of the name: its owner, fencing token, kind, holder's client and lease end. Immutable except the lease
     * end, which {@link #renew} extends from any thread and {@link #expire} or {@link #end} ends (see the class
     * comment of {@link NameArbiter}).
     */
    public static class GrantState {
        /** The lease end of a hold that is over; final. */
        public static final long ENDED = Long.MIN_VALUE;
        private static final AtomicLongFieldUpdater<GrantState> LEASE_END =
                AtomicLongFieldUpdater.newUpdater(GrantState.class, "leaseEnd");

        private final String owner;
        private final long token;
        private final boolean shared;
        private final String clientName;
        private final long sinceMillis;
        /** {@link System#nanoTime()} at which the lease ends, or {@link #ENDED}. */
        private volatile long leaseEnd;

        /**
         * @param owner the owner id of the attempt that got it
         * @param token its fencing token
         * @param shared whether it is a shared (read) hold
         * @param leaseEnd when its lease ends ({@link System#nanoTime()})
         * @param clientName the holding client's name (the client's one string, not a copy)
         * @param sinceMillis when it began (epoch ms)
         */
        public GrantState(String owner, long token, boolean shared, long leaseEnd, String clientName, long sinceMillis) {
            this.owner = owner;
            this.token = token;
            this.shared = shared;
            this.leaseEnd = leaseEnd;
            this.clientName = clientName;
            this.sinceMillis = sinceMillis;
        }

        public final String owner() {
            return owner;
        }

        public final long token() {
            return token;
        }

        public final boolean shared() {
            return shared;
        }

        public final String clientName() {
            return clientName;
        }

        public final long sinceMillis() {
            return sinceMillis;
        }

        /** {@return the lease end ({@link System#nanoTime()}), or {@link #ENDED}} */
        public final long leaseEnd() {
            return leaseEnd;
        }

        /** Extends the lease to {@code leaseNanos} after {@code now} unless it already ended; any thread. */
        public boolean renew(long now, long leaseNanos) {
            while (true) {
                long end = leaseEnd;
                if (end == ENDED || end - now <= 0) {
                    return false;
                }
                if (LEASE_END.compareAndSet(this, end, now + leaseNanos)) {
                    return true;
                }
            }
        }

        /** Ends the hold if its lease ran out by {@code now}, and returns whether it is over. */
        public final boolean expire(long now) {
            while (true) {
                long end = leaseEnd;
                if (end == ENDED) {
                    return true;
                }
                if (end - now > 0) {
                    return false;
                }
                if (LEASE_END.compareAndSet(this, end, ENDED)) {
                    return true;
                }
            }
        }

        /** Ends the hold whatever its lease. */
        public final void end() {
            leaseEnd = ENDED;
        }
    }
}
