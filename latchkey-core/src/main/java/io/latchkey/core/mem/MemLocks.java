package io.latchkey.core.mem;

import io.latchkey.LockHolder;
import io.latchkey.core.AcquireRequest;
import io.latchkey.core.Grant;
import io.latchkey.core.NameArbiter;
import io.latchkey.core.NameArbiter.GrantState;
import io.latchkey.core.RemoteLockOps;
import io.latchkey.spi.LockInfo;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * The mem server's locks: per key a {@link NameArbiter} (holds with expiry times on the server's clock, and the FIFO
 * of waiting owners), and the fencing counters, which live per key apart from the lock state and are never reset for
 * the life of the JVM. The server answers single attempts ({@link RemoteLockOps#singleAttempts()}): an attempt is
 * granted when the arbiter lets its owner take the key, else the owner keeps its entry and is told to look again at
 * the earliest lease end; the engine does the waiting. Every change that can let a waiter in (release, expiry,
 * force-unlock, a withdrawn entry) is collected for the key's subscribers. So the server is fair and readers do not
 * starve a waiting writer.
 *
 * <p>Every method runs under the {@link MemServer}'s lock (as a {@link MemServer.Step}), with its {@code now} and
 * the list of changed keys.
 */
final class MemLocks {

    private final Map<String, NameArbiter<GrantState>> entries = new HashMap<>();
    private final Map<String, Long> fencing = new HashMap<>();

    /** The server went down: every queue is lost. */
    void clearQueues() {
        entries.values().forEach(NameArbiter::clearQueue);
        entries.values().removeIf(NameArbiter::isIdle);
    }

    /**
     * One attempt ({@link RemoteLockOps#tryAcquire}): grants at once if the arbiter lets the owner take the key,
     * else keeps (or adds) the owner's entry in the key's queue and answers when to look again: at the earliest hold
     * expiry (nobody announces it), or after a second when only the queue ahead blocks (its changes are pushed).
     */
    RemoteLockOps.Attempt tryAcquire(String key, boolean shared, AcquireRequest request, String clientName, long now,
                                     List<String> changed) {
        NameArbiter<GrantState> e = entries.computeIfAbsent(key, k -> new NameArbiter<>());
        expire(key, e, now, changed);
        String owner = request.ownerId();
        if (e.mayTake(owner, shared)) {
            long requestedAt = request.time().nanoTime(); // before the hold: requestedAt + lease is a safe bound
            GrantState h = newHold(key, request, shared, now, clientName);
            if (e.grant(h)) {
                changed.add(key); // readers behind may come in as well
            }
            return RemoteLockOps.Attempt.granted(new Grant(request, h.token(), requestedAt, null));
        }
        e.enqueue(owner, new NameArbiter.Waiting(shared, 0)); // keeps its place if it had one
        long earliest = e.earliestLeaseEnd();
        return RemoteLockOps.Attempt.queued(owner, earliest == GrantState.ENDED ? TimeUnit.SECONDS.toNanos(1)
                : Math.max(1, earliest - now));
    }

    /** Removes {@code owner}'s entry from the key's queue; those behind it are told. */
    Void withdraw(String key, String owner, List<String> changed) {
        NameArbiter<GrantState> e = entries.get(key);
        if (e != null && e.withdraw(owner) != null) {
            changed.add(key);
            removeIfIdle(key, e);
        }
        return null;
    }

    boolean release(String key, Grant grant, long now, List<String> changed) {
        NameArbiter<GrantState> e = current(key, now, changed);
        boolean released = e != null && e.remove(e.find(grant.ownerId(), grant.fencingToken()));
        if (released) {
            changed.add(key);
        }
        removeIfIdle(key, e);
        return released;
    }

    /** Extends the lease of the exact hold of {@code g}; whether it was still held. */
    boolean renew(String key, Grant g, long now, List<String> changed) {
        NameArbiter<GrantState> e = current(key, now, changed);
        GrantState h = e == null ? null : e.find(g.ownerId(), g.fencingToken());
        removeIfIdle(key, e);
        return h != null && h.renew(now, TimeUnit.MILLISECONDS.toNanos(g.leaseMillis()));
    }

    Grant handOff(String key, Grant from, AcquireRequest request, String clientName, long now, List<String> changed) {
        NameArbiter<GrantState> e = current(key, now, changed);
        GrantState h = e == null ? null : e.find(from.ownerId(), from.fencingToken());
        Grant next = null;
        if (h != null && !h.shared()) {
            long requestedAt = request.time().nanoTime();
            GrantState to = newHold(key, request, false, now, clientName);
            e.handOver(h, to);
            next = new Grant(request, to.token(), requestedAt, null);
        }
        removeIfIdle(key, e);
        return next;
    }

    boolean isLocked(String key, long now, List<String> changed) {
        NameArbiter<GrantState> e = current(key, now, changed);
        removeIfIdle(key, e);
        return e != null && !e.holds().isEmpty();
    }

    boolean forceUnlock(String key, long now, List<String> changed) {
        NameArbiter<GrantState> e = current(key, now, changed);
        boolean held = e != null && !e.clear().isEmpty();
        if (e != null) {
            changed.add(key);
        }
        removeIfIdle(key, e);
        return held;
    }

    /** Whether an unexpired exclusive hold of {@code key} has fencing token {@code token} (a fenced write's check). */
    boolean holdsExclusive(String key, long token, long now, List<String> changed) {
        NameArbiter<GrantState> e = current(key, now, changed);
        removeIfIdle(key, e);
        return e != null && e.holdsExclusive(token);
    }

    /**
     * The unexpired holds of {@code key} (if {@code exact}) or of every key that starts with it, named by the rest of
     * the key, for {@code holder} and {@code list}: one entry per hold (a read lock may have several), with the
     * server's token, its remaining lease on the server's clock and the length of the key's queue. Holds count 1
     * each: reentrancy is counted by the holder's client. Expired holds are skipped, not removed: inspection changes
     * nothing.
     */
    List<LockInfo> holds(String key, boolean exact) {
        List<LockInfo> result = new ArrayList<>();
        long now = System.nanoTime();
        entries.forEach((k, e) -> {
            if (exact ? !k.equals(key) : !k.startsWith(key)) {
                return;
            }
            for (GrantState h : e.holds()) {
                long left = h.leaseEnd() - now;
                if (left > 0) {
                    result.add(new LockInfo(k.substring(k.indexOf('\u0000') + 1), h.owner(), 1,
                            OptionalLong.of(h.token()), Optional.of(Duration.ofNanos(left)),
                            OptionalInt.of(e.queue().size()))
                            .withHolder(h.clientName(), Optional.of(Instant.ofEpochMilli(h.sinceMillis()))));
                }
            }
        });
        return result;
    }

    /** Who holds {@code key} now (the first unexpired hold), with the length of its queue; {@code null} if free. */
    LockHolder holder(String key) {
        List<LockInfo> holds = holds(key, true);
        if (holds.isEmpty()) {
            return null;
        }
        LockInfo h = holds.get(0);
        return new LockHolder(h.owner(), h.clientName(), h.heldSince(), h.remainingLease(), h.fencingToken(),
                h.waiters());
    }

    /** The entry of {@code key} with its expired holds removed, or {@code null}. */
    private NameArbiter<GrantState> current(String key, long now, List<String> changed) {
        NameArbiter<GrantState> e = entries.get(key);
        if (e != null) {
            expire(key, e, now, changed);
        }
        return e;
    }

    /** A hold of {@code request}'s owner with the key's next fencing token (not yet granted). */
    private GrantState newHold(String key, AcquireRequest request, boolean shared, long now, String clientName) {
        return new GrantState(request.ownerId(), fencing.merge(key, 1L, Long::sum), shared,
                now + TimeUnit.MILLISECONDS.toNanos(request.leaseMillis()), clientName, System.currentTimeMillis());
    }

    private static void expire(String key, NameArbiter<GrantState> e, long now, List<String> changed) {
        if (!e.expire(now).isEmpty()) {
            changed.add(key);
        }
    }

    private void removeIfIdle(String key, NameArbiter<GrantState> e) {
        if (e != null && e.isIdle()) {
            entries.remove(key, e);
        }
    }
}
