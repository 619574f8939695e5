package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The names Redis refuses, and a search for collisions: every key any accepted name maps to (lock hash, token key,
 * old-layout counter, synchronizer bases, fenced-store prefixes, standalone and cluster forms) belongs to one name.
 */
class ReservedNamesTest {

    private static final List<String> NAMESPACES = List.of("", "app:", "a/b/", "{t}", "x}", "{");
    private static final List<String> NAMES = List.of("x", "{x}", "{x", "x}", "}x{", "a{b}c", "{}", "{app:x}", "{{x}",
            "{a/b/x}", "a/b/x", "b/x", "latchkey", "tokens", "x:latchkey", "latchkey:x", ":latchkey", "app:x",
            "{t}x", "t", "{x}:fence", "x:fence", "{", "}", "x:semaphore");

    @Test
    void keysTheLibraryKeepsAreReservedInEveryNamespace() {
        for (String ns : NAMESPACES) {
            for (String reserved : List.of("latchkey:tokens", "sub/latchkey:tokens", "{x}:latchkey:fence",
                    "x:latchkey:fence", "{x}:latchkey:semaphore:permits", "{x}:latchkey:store:k", "a:latchkey:b")) {
                assertThatThrownBy(() -> ReservedNames.check(ns, reserved, false))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved")
                        .hasMessageContaining(":latchkey:");
            }
        }
        assertThatThrownBy(() -> ReservedNames.check("app:", "{app:x}", true)).hasMessageContaining("'app:x'");
        assertThatThrownBy(() -> ReservedNames.check("{", "x}", true)).hasMessageContaining("hash tag");
        assertThatThrownBy(() -> ReservedNames.check("", "{x}", true)).hasMessageContaining("hash tag");
        assertThatCode(() -> ReservedNames.check("", "{x}", false)).as("a plain lock has only its hash")
                .doesNotThrowAnyException();
        assertThatCode(() -> ReservedNames.check("", "{x}:y", true)).doesNotThrowAnyException();
        assertThatCode(() -> ReservedNames.check("", "latchkey", true)).doesNotThrowAnyException();
        assertThatCode(() -> ReservedNames.check("", "mylatchkey:job", true)).doesNotThrowAnyException();
    }

    @Test
    void acceptedNamesNeverShareAKey() {
        for (boolean cluster : List.of(false, true)) {
            Map<String, String> owner = new HashMap<>();
            List<String> clashes = new ArrayList<>();
            for (String ns : NAMESPACES) {
                for (String name : NAMES) {
                    boolean accepted = true;
                    try {
                        ReservedNames.check(ns, name, true);
                    } catch (IllegalArgumentException e) {
                        accepted = false;
                    }
                    if (!accepted) {
                        continue;
                    }
                    LockKeys k = new LockKeys(ns, name, cluster);
                    String who = ns + name; // namespaces are prefixes: "a/b/" + "x" is "" + "a/b/x" by design
                    List<String> keys = new ArrayList<>(List.of(k.lockKey,
                            RedisFencedStoreOps.storePrefix(ns, k.lockKey)));
                    for (String kind : List.of("semaphore", "permits", "latch", "fair", "rw")) {
                        keys.add(SyncKeys.base(ns, name, kind));
                    }
                    for (String key : keys) {
                        String before = owner.putIfAbsent(key, who);
                        if (before != null && !before.equals(who)) {
                            clashes.add(key + " of " + who + " and " + before);
                        }
                    }
                    // No name's key is a token key of any namespace.
                    for (String other : NAMESPACES) {
                        if (FencingTokens.key(other, k.lockKey, cluster).equals(k.lockKey)) {
                            clashes.add(k.lockKey + " is a token key");
                        }
                    }
                }
            }
            assertThat(clashes).as("cluster=%s", cluster).isEmpty();
        }
    }
}
