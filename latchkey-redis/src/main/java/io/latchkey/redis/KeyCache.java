package io.latchkey.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Per-name key objects (key strings, script key arrays) computed once and reused on the hot path. Bounded: when it
 * holds {@link #LIMIT} names it is cleared rather than grown, since rebuilding keys is cheap and an unbounded map
 * over user-chosen names would be a leak.
 *
 * <p>An acquire that is granted at once need not fill it ({@link #peekOrBuild}, then {@link #keep} only when the
 * name turned out busy): the release fills it, so the names kept are those that are cycled or contended, not every
 * name held at the moment (a client holding many locks would otherwise keep up to {@link #LIMIT} names' keys, some
 * 330 bytes each for a plain lock).
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

    /** {@return the cached keys of {@code name}, or new ones that are not cached} */
    K peekOrBuild(String name) {
        K k = keys.get(name);
        return k != null ? k : factory.apply(name);
    }

    /**
     * Caches {@code k}, the keys of {@code name} built by {@link #peekOrBuild}, unless some are cached already.
     *
     * @return the keys cached now
     */
    K keep(String name, K k) {
        if (keys.size() >= LIMIT) {
            keys.clear();
        }
        K cached = keys.putIfAbsent(name, k);
        return cached != null ? cached : k;
    }

    /** {@return the keys of {@code name}, built and cached if they are not cached} */
    K get(String name) {
        K k = keys.get(name);
        return k != null ? k : keep(name, factory.apply(name));
    }
}
