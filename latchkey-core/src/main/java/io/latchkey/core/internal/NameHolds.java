package io.latchkey.core.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The holds part of a {@link NameState} (its base class, so that a held lock name costs one object): the live holds of
 * one lock name in one client by owner, and the holds lost while their thread still counts on them. Without a map for
 * the usual case: {@link #holder} alone (every exclusive lock, and most shared ones), or {@link #readers} by owner id
 * when several owners of this client share a read lock. Invariants (checked by {@link #checkHoldsLocked}): each live
 * hold is its owner's only one, keyed by its owner, of this name state; a thread-owned hold counts at least one entry;
 * a lost hold is no longer live; {@link #readers} has two holds or more, and then {@link #holder} is {@code null}.
 * Everything here is guarded by this lock, and every field is written only here.
 */
@SuppressWarnings("serial") // never serialized: package-private, engine-internal
abstract class NameHolds extends ReentrantLock {

    private Hold holder;
    private HashMap<String, Hold> readers;
    /** Thread-owned holds that were lost and whose owner has not unlocked yet (so that unlock can say so). */
    private Map<String, Hold> lostHolds;

    /** Under the lock: keeps this name state for reuse or forgets it, if nothing is left (see {@link NameState}). */
    abstract void idleCheckLocked();

    boolean heldLocked() {
        return holder != null || readers != null;
    }

    boolean lostHoldsEmptyLocked() {
        return lostHolds == null || lostHolds.isEmpty();
    }

    /** Under the lock: the live hold of {@code ownerId}, or {@code null}. */
    Hold holderLocked(String ownerId) {
        if (holder != null) {
            return holder.ownerId().equals(ownerId) ? holder : null;
        }
        return readers == null ? null : readers.get(ownerId);
    }

    /** Under the lock: the caller's live thread-owned hold, re-entered, or {@code null}. */
    Hold reenterLocked(String ownerId) {
        Hold h = holderLocked(ownerId);
        if (h != null && h.threadOwned() && h.isHeld()) {
            h.count++;
            return h;
        }
        return null;
    }

    /** Under the lock: {@code h} becomes its owner's live hold (replacing any earlier one of that owner). */
    void putHolderLocked(Hold h) {
        if (readers != null) {
            readers.put(h.ownerId(), h);
        } else if (holder == null || holder.ownerId().equals(h.ownerId())) {
            holder = h;
        } else {
            readers = new HashMap<>(4);
            readers.put(holder.ownerId(), holder);
            readers.put(h.ownerId(), h);
            holder = null;
        }
        forgetLostHoldLocked(h.ownerId()); // a loss this owner never unlocked is superseded by the new hold
    }

    /** Under the lock: removes {@code h} if it is its owner's live hold; returns whether it was. */
    boolean removeHolderLocked(Hold h) {
        if (holder == h) {
            holder = null;
            return true;
        }
        if (readers == null || !readers.remove(h.ownerId(), h)) {
            return false;
        }
        if (readers.size() == 1) {
            holder = readers.values().iterator().next();
            readers = null;
        }
        return true;
    }

    /** Under the lock: a snapshot of the live holds. */
    List<Hold> holdersLocked() {
        return holder != null ? List.of(holder) : readers == null ? List.of() : new ArrayList<>(readers.values());
    }

    /** Under the lock: {@code h}, lost, no longer blocks local waiters; its thread learns of it at its unlock. */
    void lostLocked(Hold h) {
        if (removeHolderLocked(h) && h.threadOwned()) {
            putLostHoldLocked(h);
        }
    }

    private void putLostHoldLocked(Hold h) {
        if (lostHolds == null) {
            lostHolds = new HashMap<>(2);
        }
        lostHolds.put(h.ownerId(), h);
    }

    /** Under the lock: a new acquire by {@code ownerId} after a loss it never unlocked starts afresh. */
    void forgetLostHoldLocked(String ownerId) {
        if (lostHolds != null) {
            lostHolds.remove(ownerId);
        }
    }

    /**
     * What {@code unlock()} by {@code ownerId} must do, decided under the lock: nothing more
     * ({@link UnlockResult#STILL_HELD}), refuse ({@link UnlockResult#NOT_HELD}), report a loss ({@link LostUnlock}), or
     * release the {@link Hold} itself.
     */
    UnlockOutcome unlockThread(String ownerId) {
        lock();
        try {
            Hold h = holderLocked(ownerId);
            if (h != null && h.threadOwned()) {
                if (!h.isHeld()) {
                    // lost a moment ago; onHoldLost has not moved it yet: do it here, keeping the count so that
                    // every pending unlock of a nested hold reports the loss
                    removeHolderLocked(h);
                    if (--h.count > 0) {
                        putLostHoldLocked(h);
                    }
                    idleCheckLocked();
                    return new LostUnlock(h);
                }
                return --h.count > 0 ? UnlockResult.STILL_HELD : h;
            }
            Hold lost = lostHolds == null ? null : lostHolds.get(ownerId);
            if (lost != null) {
                if (--lost.count <= 0) {
                    lostHolds.remove(ownerId);
                    idleCheckLocked();
                }
                return new LostUnlock(lost);
            }
            return UnlockResult.NOT_HELD;
        } finally {
            unlock();
        }
    }

    /** What {@link #unlockThread} decided; a {@link Hold} is its own outcome (release it), so nothing is allocated. */
    sealed interface UnlockOutcome permits UnlockResult, LostUnlock, Hold {
    }

    enum UnlockResult implements UnlockOutcome { STILL_HELD, NOT_HELD }

    /** {@code unlock()} of a hold that was lost: the caller reports the loss. */
    record LostUnlock(Hold hold) implements UnlockOutcome {
    }

    /** Adds the held watchdog holds here to {@code batches}, by renewer (the watchdog's tick). */
    void addRenewable(Map<Renewable.Renewer, List<Renewable>> batches) {
        lock();
        try {
            for (Hold h : holdersLocked()) {
                if (h.grant.watchdog() && h.isHeld()) {
                    batches.computeIfAbsent(h.renewer(), k -> new ArrayList<>()).add(h);
                }
            }
        } finally {
            unlock();
        }
    }

    /** The hold here whose grant is {@code grant} (the very instance), or {@code null}. */
    Hold holdOf(io.latchkey.core.Grant grant) {
        lock();
        try {
            for (Hold h : holdersLocked()) {
                if (h.grant == grant) {
                    return h;
                }
            }
            return null;
        } finally {
            unlock();
        }
    }

    /** A snapshot of the holds here (for close). */
    List<Hold> liveHolds() {
        lock();
        try {
            return holdersLocked();
        } finally {
            unlock();
        }
    }

    Hold liveThreadHold(String ownerId) {
        lock();
        try {
            Hold h = holderLocked(ownerId);
            return h != null && h.threadOwned() && h.isHeld() ? h : null;
        } finally {
            unlock();
        }
    }

    /** Under the lock: the first broken invariant of the holds (see the class comment), or {@code null}. */
    String checkHoldsLocked() {
        if (readers == null) {
            return holder == null ? null : checkHold(holder);
        }
        if (holder != null || readers.size() < 2) {
            return "the holders are inconsistent: " + holder + ", " + readers;
        }
        for (Hold h : readers.values()) {
            String broken = checkHold(h);
            if (broken != null) {
                return broken;
            }
        }
        return null;
    }

    private String checkHold(Hold h) {
        if (h.nameState != this || h != holderLocked(h.ownerId()) || h.threadOwned() && h.count < 1
                || lostHolds != null && lostHolds.get(h.ownerId()) == h) {
            return "hold " + h + " is not its owner's one live hold here (count " + h.count + ")";
        }
        return null;
    }

    /** Under the lock: two or more owners hold the name. */
    boolean severalHoldsLocked() {
        return readers != null;
    }

    /** Under the lock: the holds, for test failures. */
    String describeHoldsLocked() {
        return "holders=" + holdersLocked() + " lost=" + lostHolds;
    }
}
