package io.latchkey.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Per-name key objects (key strings, script key arrays) computed once and reused on the hot path. Bounded: when it
 * holds {@link #LIMIT} names it is cleared rather than grown, since rebuilding keys is cheap and an unbounded map
 * over user-chosen names would be a leak.
 */
final class KeyCache<K> {

    static final int LIMIT = 4096;

    private final ConcurrentHashMap<String, K> keys = new ConcurrentHashMap<>();
    private final Function<String, K> factory;

    KeyCache(Function<String, K> factory) {
        this.factory = factory;
    }

    /** {@return the cached keys of {@code name}, or {@code null} (nothing is built)} */
    K peek(String name) {
        return keys.get(name);
    }

    K get(String name) {
        K k = keys.get(name);
        if (k == null) {
            if (keys.size() >= LIMIT) {
                keys.clear();
            }
            k = keys.computeIfAbsent(name, factory);
        }
        return k;
    }
}
