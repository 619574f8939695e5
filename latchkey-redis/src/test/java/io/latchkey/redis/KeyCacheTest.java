package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class KeyCacheTest {

    private final AtomicInteger built = new AtomicInteger();
    private final KeyCache<String> cache = new KeyCache<>(name -> {
        built.incrementAndGet();
        return "keys of " + name;
    });

    @Test
    void peekOrBuildDoesNotCacheAndKeepDoes() {
        assertThat(cache.peekOrBuild("a")).isEqualTo("keys of a");
        assertThat(cache.peek("a")).isNull();
        cache.keep("a", "kept keys of a");
        assertThat(cache.peek("a")).isEqualTo("kept keys of a");
        assertThat(cache.peekOrBuild("a")).isEqualTo("kept keys of a");
        assertThat(cache.get("a")).isEqualTo("kept keys of a");
        assertThat(built.get()).isEqualTo(1);
    }

    @Test
    void keepDoesNotReplaceCachedKeys() {
        String first = cache.get("b");
        cache.keep("b", "other");
        assertThat(cache.peek("b")).isSameAs(first);
    }

    @Test
    void isClearedRatherThanGrownBeyondItsLimit() {
        for (int i = 0; i < KeyCache.LIMIT; i++) {
            cache.get("n" + i);
        }
        assertThat(cache.peek("n0")).isNotNull();
        cache.keep("one more", "keys");
        assertThat(cache.peek("n0")).isNull();
        assertThat(cache.peek("one more")).isEqualTo("keys");
    }
}
