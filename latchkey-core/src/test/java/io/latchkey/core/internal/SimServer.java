package io.latchkey.core.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The simulated server: the single truth about who holds what, on the scheduler's clock. Lock leases expire on it; fair
 * locks keep a FIFO queue of owners (an entry not refreshed for {@link #ENTRY_TTL_NANOS} is dropped, as a crashed
 * waiter's entry would be); a read-write lock's readers share it ({@link #readers}), its writer is an ordinary lock
 * record that also waits for the readers to leave; semaphores and latches are plain counters. Every change that can let
 * a waiter in is pushed to the subscribers of the name (the network may lose the push). A restart forgets every lock
 * and queue but keeps the fencing counter and the counted resources (which the simulation keeps fault-free so that
 * permits can be counted).
 */
final class SimServer {

    static final long ENTRY_TTL_NANOS = 3_000_000_000L;

    record LockRec(String owner, long token, long expiresAt, String attempt) {
    }

    final SimScheduler sched;
    final Map<String, LockRec> locks = new HashMap<>();
    final Map<String, LinkedHashMap<String, Long>> fairQueues = new HashMap<>();
    /** Read holds of read-write locks: name → owner → hold. */
    final Map<String, Map<String, LockRec>> readers = new HashMap<>();
    final Map<String, Integer> permits = new HashMap<>();
    final Map<String, Long> latches = new HashMap<>();
    final Map<String, List<Consumer<String>>> subscribers = new HashMap<>();
    long tokens;
    int restarts;
    /** Called for each grant the server makes: (name, owner, token). */
    Grantee grantListener = (n, o, t) -> { };
    /** Called when a lease runs out on the server: (name, owner, token). */
    Grantee expiryListener = (n, o, t) -> { };
    /** Called when the network loses an answer: the waiter it was for is stuck until the operation timeout. */
    Runnable answerLost = () -> { };
    /** Called when permits are taken. */
    java.util.function.Consumer<String> taken = n -> { };

    /**
     * What an attempt made at the server whose answer the network lost: its client gave up on the answer at
     * {@code since}; {@code there} tells whether it is still on the server.
     */
    record Orphan(String what, long since, java.util.function.BooleanSupplier there) {
    }

    /** The {@link Orphan}s not yet seen gone. */
    final List<Orphan> orphans = new ArrayList<>();

    /** {@code owner}'s hold {@code token} of {@code name}, exclusive or read, is still on the server. */
    boolean holds(String name, String owner, long token) {
        LockRec r = holder(name);
        if (r != null && r.owner.equals(owner) && r.token == token) {
            return true;
        }
        LockRec mine = readersOf(name).get(owner);
        return mine != null && mine.token == token;
    }

    interface Grantee {
        void on(String name, String owner, long token);
    }

    SimServer(SimScheduler sched) {
        this.sched = sched;
    }

    long now() {
        return sched.nanoTime();
    }

    /** The live holder of {@code name}, expiring a lease that ran out. */
    LockRec holder(String name) {
        LockRec r = locks.get(name);
        if (r != null && r.expiresAt - now() <= 0) {
            locks.remove(name);
            expiryListener.on(name, r.owner, r.token);
            changed(name);
            return null;
        }
        return r;
    }

    /** One attempt: the grant's token, or -(remaining lease in ns + 1) when busy. */
    long tryLock(String name, String owner, long leaseMillis, boolean fair, String attempt) {
        LockRec r = holder(name);
        if (fair) {
            LinkedHashMap<String, Long> q = fairQueues.computeIfAbsent(name, k -> new LinkedHashMap<>());
            q.put(owner, now());
            dropStaleEntries(q);
            if (r == null && q.keySet().iterator().next().equals(owner)) {
                q.remove(owner);
                if (q.isEmpty()) {
                    fairQueues.remove(name);
                }
                return grant(name, owner, leaseMillis, attempt);
            }
            return r == null ? -ENTRY_TTL_NANOS / 10 - 1 : -(r.expiresAt - now()) - 1;
        }
        if (r == null) {
            return grant(name, owner, leaseMillis, attempt);
        }
        if (r.owner.equals(owner)) {
            // the owner's own hold (a retried attempt whose first answer was lost, or a thread's new acquire after a
            // release whose answer was lost): a fresh grant with a new token and a full lease, as the Redis recipe
            // does; keeping the old expiry let the lease end before the engine's first renewal
            return grant(name, owner, leaseMillis, attempt);
        }
        return -(r.expiresAt - now()) - 1;
    }

    /** The live read holds of {@code name}, expiring the ones that ran out. */
    Map<String, LockRec> readersOf(String name) {
        Map<String, LockRec> m = readers.get(name);
        if (m == null) {
            return Map.of();
        }
        boolean changed = false;
        for (Iterator<LockRec> it = m.values().iterator(); it.hasNext(); ) {
            LockRec r = it.next();
            if (r.expiresAt - now() <= 0) {
                it.remove();
                expiryListener.on(name, r.owner, r.token);
                changed = true;
            }
        }
        if (m.isEmpty()) {
            readers.remove(name);
        }
        if (changed) {
            changed(name);
        }
        return m;
    }

    /** A read attempt: granted unless another owner holds the write lock; the token, or -(remaining + 1). */
    long tryRead(String name, String owner, long leaseMillis, String attempt) {
        LockRec w = holder(name);
        if (w != null && !w.owner.equals(owner)) {
            return -(w.expiresAt - now()) - 1;
        }
        LockRec mine = readersOf(name).get(owner);
        if (mine != null) {
            // a retried attempt whose first answer was lost: the same hold, now this attempt's
            readers.get(name).put(owner, new LockRec(owner, mine.token, mine.expiresAt, attempt));
            return mine.token;
        }
        long token = ++tokens;
        readers.computeIfAbsent(name, k -> new HashMap<>()).put(owner,
                new LockRec(owner, token, now() + leaseMillis * 1_000_000L, attempt));
        grantListener.on(name, owner, token);
        return token;
    }

    /** A write attempt: as {@link #tryLock} (not fair), once no reader holds the name. */
    long tryWrite(String name, String owner, long leaseMillis, String attempt) {
        Map<String, LockRec> rs = readersOf(name);
        if (!rs.isEmpty()) {
            long soonest = Long.MAX_VALUE;
            for (LockRec r : rs.values()) {
                soonest = Math.min(soonest, r.expiresAt - now());
            }
            return -soonest - 1;
        }
        return tryLock(name, owner, leaseMillis, false, attempt);
    }

    boolean releaseRead(String name, String owner, long token) {
        LockRec r = readersOf(name).get(owner);
        if (r == null || r.token != token) {
            return false;
        }
        readers.get(name).remove(owner);
        if (readers.get(name).isEmpty()) {
            readers.remove(name);
        }
        changed(name);
        return true;
    }

    boolean renewRead(String name, String owner, long token, long leaseMillis) {
        LockRec r = readersOf(name).get(owner);
        if (r == null || r.token != token) {
            return false;
        }
        readers.get(name).put(owner, new LockRec(owner, token, now() + leaseMillis * 1_000_000L, r.attempt));
        return true;
    }

    private void dropStaleEntries(LinkedHashMap<String, Long> q) {
        for (Iterator<Map.Entry<String, Long>> it = q.entrySet().iterator(); it.hasNext(); ) {
            if (now() - it.next().getValue() > ENTRY_TTL_NANOS) {
                it.remove();
            }
        }
    }

    void withdraw(String name, String owner) {
        LinkedHashMap<String, Long> q = fairQueues.get(name);
        if (q != null && q.remove(owner) != null) {
            if (q.isEmpty()) {
                fairQueues.remove(name);
            }
            changed(name);
        }
    }

    private long grant(String name, String owner, long leaseMillis, String attempt) {
        long token = ++tokens;
        locks.put(name, new LockRec(owner, token, now() + leaseMillis * 1_000_000L, attempt));
        grantListener.on(name, owner, token);
        return token;
    }

    boolean release(String name, String owner, long token) {
        LockRec r = holder(name);
        if (r == null || !r.owner.equals(owner) || r.token != token) {
            return false;
        }
        locks.remove(name);
        changed(name);
        return true;
    }

    boolean renew(String name, String owner, long token, long leaseMillis) {
        LockRec r = holder(name);
        if (r == null || !r.owner.equals(owner) || r.token != token) {
            return false;
        }
        locks.put(name, new LockRec(owner, token, now() + leaseMillis * 1_000_000L, r.attempt));
        return true;
    }

    /** Passes a held lock to {@code to} with a new token; -1 if {@code owner} no longer held it. */
    long handOff(String name, String owner, long token, String to, long leaseMillis, String attempt) {
        LockRec r = holder(name);
        if (r == null || !r.owner.equals(owner) || r.token != token) {
            return -1;
        }
        return grant(name, to, leaseMillis, attempt);
    }

    /**
     * The clean-up of an attempt whose answer was lost: removes the hold (exclusive or read) of {@code owner} on
     * {@code name} only if the attempt {@code attempt} made it; true if it removed one.
     */
    boolean cleanUpAttempt(String name, String owner, String attempt) {
        LockRec r = holder(name);
        if (r != null && r.owner.equals(owner) && r.attempt.equals(attempt)) {
            locks.remove(name);
            changed(name);
            return true;
        }
        LockRec mine = readersOf(name).get(owner);
        if (mine != null && mine.attempt.equals(attempt)) {
            return releaseRead(name, owner, mine.token);
        }
        return false;
    }

    boolean forceUnlock(String name) {
        if (holder(name) == null) {
            return false;
        }
        locks.remove(name);
        changed(name);
        return true;
    }

    /** A restart without persistence: locks and queues are gone; the fencing counter survives (it is durable). */
    void restart() {
        restarts++;
        List<String> names = new ArrayList<>(locks.keySet());
        names.addAll(readers.keySet());
        locks.clear();
        readers.clear();
        fairQueues.clear();
        for (String n : names) {
            changed(n);
        }
    }

    // ---------------------------------------------------------------------------------------------- counted

    /** Permits whose give never reached the server (the client's connection was down): lost for good. */
    int permitsNotGiven;

    /** Takes that may still be undone ({@link #cleanUpTake}), by attempt id: how many permits each took. */
    final Map<String, Integer> takes = new HashMap<>();

    boolean tryTake(String name, int n, String attempt) {
        int p = permits.getOrDefault(name, 0);
        if (p < n) {
            return false;
        }
        permits.put(name, p - n);
        takes.put(attempt, n);
        taken.accept(name);
        return true;
    }

    /** Gives back what the take {@code attempt} took, once; true if it did. */
    boolean cleanUpTake(String name, String attempt) {
        Integer n = takes.remove(attempt);
        if (n == null) {
            return false;
        }
        give(name, n);
        return true;
    }

    void give(String name, int n) {
        permits.merge(name, n, Integer::sum);
        changed(name);
    }

    void countDown(String name) {
        Long c = latches.get(name);
        if (c != null && c > 0) {
            latches.put(name, c - 1);
            if (c == 1) {
                changed(name);
            }
        }
    }

    /** Leased permits of permit-expirable semaphores: name → permit id → expiry. */
    final Map<String, Map<String, Long>> leased = new HashMap<>();
    final Map<String, Integer> leaseCapacity = new HashMap<>();

    /** Leased permits of {@code name} that are live now (expiring the ones that ran out). */
    Map<String, Long> leasesOf(String name) {
        Map<String, Long> m = leased.computeIfAbsent(name, k -> new LinkedHashMap<>());
        boolean freed = false;
        for (Iterator<Map.Entry<String, Long>> it = m.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Long> e = it.next();
            if (e.getValue() - now() <= 0) {
                it.remove();
                expiryListener.on(name, e.getKey(), 0);
                freed = true;
            }
        }
        if (freed) {
            changed(name);
        }
        return m;
    }

    boolean tryLease(String name, String id, long leaseMillis) {
        Map<String, Long> m = leasesOf(name);
        if (m.size() >= leaseCapacity.getOrDefault(name, 0)) {
            return false;
        }
        m.put(id, now() + leaseMillis * 1_000_000L);
        taken.accept(name);
        return true;
    }

    /** The time until the earliest lease of {@code name} ends (plus 1 ms), or 0 without leases: a busy lease's hint. */
    long nanosToEarliestLeaseEnd(String name) {
        long soonest = 0;
        for (long end : leasesOf(name).values()) {
            long left = end - now() + 1_000_000L;
            soonest = soonest == 0 ? left : Math.min(soonest, left);
        }
        return Math.max(0, soonest);
    }

    boolean releaseLease(String name, String id) {
        if (leasesOf(name).remove(id) == null) {
            return false;
        }
        changed(name);
        return true;
    }

    boolean renewLease(String name, String id, long leaseMillis) {
        Map<String, Long> m = leasesOf(name);
        if (!m.containsKey(id)) {
            return false;
        }
        m.put(id, now() + leaseMillis * 1_000_000L);
        return true;
    }

    long getCount(String name) {
        return latches.getOrDefault(name, 0L);
    }

    // ---------------------------------------------------------------------------------------------- pushes

    Runnable subscribe(String name, Consumer<String> push) {
        subscribers.computeIfAbsent(name, k -> new ArrayList<>()).add(push);
        return () -> {
            List<Consumer<String>> l = subscribers.get(name);
            if (l != null) {
                l.remove(push);
                if (l.isEmpty()) {
                    subscribers.remove(name);
                }
            }
        };
    }

    void changed(String name) {
        List<Consumer<String>> l = subscribers.get(name);
        if (l != null) {
            for (Consumer<String> c : new ArrayList<>(l)) {
                c.accept(name);
            }
        }
    }

    /** Names with live lock holders now (expiring the ones that ran out). */
    List<String> heldLocks() {
        List<String> held = new ArrayList<>();
        for (String n : new ArrayList<>(locks.keySet())) {
            if (holder(n) != null) {
                held.add(n);
            }
        }
        for (String n : new ArrayList<>(readers.keySet())) {
            if (!readersOf(n).isEmpty()) {
                held.add(n + " (read)");
            }
        }
        return held;
    }

    ArrayDeque<String> queueOf(String name) {
        LinkedHashMap<String, Long> q = fairQueues.get(name);
        return q == null ? new ArrayDeque<>() : new ArrayDeque<>(q.keySet());
    }
}
