package io.latchkey.redis;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Splits a watchdog round's holds into renewal scripts of at most {@code max} holds each. Standalone, in any
 * grouping. On a Redis Cluster a script may only touch keys of one hash slot (else CROSSSLOT), so the holds are
 * grouped by their key's slot first: one script per slot in use (and per {@code max} holds of that slot), each
 * routed by Lettuce to its slot's master, all of them pipelined; {@link #lost} reads each script's reply.
 */
final class RenewBatches {

    private RenewBatches() {
    }

    /**
     * @param keyOf a key of the hold's script (all keys of one hold share its slot)
     */
    static <T> List<List<T>> split(Collection<T> holds, int max, boolean cluster, Function<T, String> keyOf) {
        List<List<T>> batches = new ArrayList<>();
        if (!cluster) {
            chunk(new ArrayList<>(holds), max, batches);
            return batches;
        }
        Map<Integer, List<T>> bySlot = new LinkedHashMap<>();
        for (T hold : holds) {
            bySlot.computeIfAbsent(LockKeys.slot(keyOf.apply(hold)), s -> new ArrayList<>()).add(hold);
        }
        for (List<T> sameSlot : bySlot.values()) {
            chunk(sameSlot, max, batches);
        }
        return batches;
    }

    /**
     * The holds of {@code batch} a renewal script's reply (one entry per hold, in order: {@code 1} renewed, anything
     * else not) says were no longer held.
     */
    static <T> Set<T> lost(List<Object> reply, List<T> batch) {
        Set<T> lost = new HashSet<>();
        for (int i = 0; i < batch.size(); i++) {
            Object renewed = reply.get(i);
            if (!(renewed instanceof Long) || (Long) renewed != 1L) {
                lost.add(batch.get(i));
            }
        }
        return lost;
    }

    private static <T> void chunk(List<T> all, int max, List<List<T>> into) {
        for (int from = 0; from < all.size(); from += max) {
            into.add(all.subList(from, Math.min(all.size(), from + max)));
        }
    }
}
