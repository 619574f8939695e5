package io.latchkey.core.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

/**
 * The live holds of one lock name in one client, by owner, without a map for the usual case: {@code null} (none),
 * one {@link Hold} (every exclusive lock, and most shared ones), or a {@code HashMap} by owner id (several readers of
 * this client), so that a held lock costs no map. A value is only read and replaced through these functions, under
 * its {@link NameState}'s lock.
 */
final class Holders {

    private Holders() {
    }

    /** The live hold of {@code ownerId} in {@code holders}, or {@code null}. */
    static Hold of(Object holders, String ownerId) {
        if (holders instanceof Hold h) {
            return h.ownerId().equals(ownerId) ? h : null;
        }
        return holders == null ? null : ((HashMap<?, ?>) holders).get(ownerId) instanceof Hold h ? h : null;
    }

    /** {@code holders} with {@code h} as its owner's live hold (replacing any earlier one of that owner). */
    @SuppressWarnings("unchecked")
    static Object with(Object holders, Hold h) {
        if (holders == null || holders instanceof Hold one && one.ownerId().equals(h.ownerId())) {
            return h;
        }
        if (holders instanceof Hold one) {
            HashMap<String, Hold> map = new HashMap<>(4);
            map.put(one.ownerId(), one);
            map.put(h.ownerId(), h);
            return map;
        }
        ((HashMap<String, Hold>) holders).put(h.ownerId(), h);
        return holders;
    }

    /** {@code holders} without {@code h}, if it is its owner's live hold there ({@code holders} as it was if not). */
    static Object without(Object holders, Hold h) {
        if (holders == h) {
            return null;
        }
        if (holders instanceof HashMap<?, ?> map && map.remove(h.ownerId(), h)) {
            if (map.isEmpty()) {
                return null;
            }
            if (map.size() == 1) {
                return map.values().iterator().next();
            }
        }
        return holders;
    }

    /** A snapshot of the live holds in {@code holders}. */
    @SuppressWarnings("unchecked")
    static List<Hold> list(Object holders) {
        if (holders == null) {
            return List.of();
        }
        if (holders instanceof Hold h) {
            return List.of(h);
        }
        return new ArrayList<>(((HashMap<String, Hold>) holders).values());
    }
}
