package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LockKeysTest {

    @ParameterizedTest
    @ValueSource(strings = {"orders:42", "{user1}:cart", "a{}b", "a{b", "a}b", "}{", "x{y}z{w}", "{}", "é✓ü", "{"})
    void tokenKeyIsInTheLockKeysSlot(String name) {
        for (String namespace : new String[] {"", "ns:", "a{b}:", "a{", "}z:"}) {
            LockKeys keys = new LockKeys(namespace, name, true);
            assertThat(keys.lockKey).isEqualTo(namespace + name);
            assertThat(LockKeys.slot(keys.tokenKey)).as("%s|%s", namespace, name)
                    .isEqualTo(LockKeys.slot(keys.lockKey));
            assertThat(keys.tokenKey).isNotEqualTo(keys.lockKey).endsWith(":latchkey:tokens");
        }
        assertThat(new LockKeys("ns:", name, true).tokenKey).as("inside the namespace").startsWith("ns:{");
    }

    @Test
    void standaloneHasOneTokenKeyPerNamespaceAndAClusterOnePerSlot() {
        assertThat(new LockKeys("ns:", "a", false).tokenKey).isEqualTo("ns:latchkey:tokens")
                .isEqualTo(new LockKeys("ns:", "b", false).tokenKey);
        assertThat(new LockKeys("", "a", false).tokenKey).isEqualTo("latchkey:tokens");
        java.util.Set<String> perSlot = new java.util.HashSet<>();
        java.util.Set<Integer> slots = new java.util.HashSet<>();
        for (int i = 0; i < 50_000; i++) {
            LockKeys keys = new LockKeys("ns:", "order:" + i, true);
            perSlot.add(keys.tokenKey);
            slots.add(LockKeys.slot(keys.lockKey));
        }
        assertThat(perSlot).as("one token key per slot, never per name").hasSize(slots.size())
                .hasSizeLessThanOrEqualTo(16384);
    }

    @Test
    void channelFollowsRedissonsPrefixRule() {
        assertThat(LockKeys.channelFor("orders")).isEqualTo("redisson_lock__channel:{orders}");
        assertThat(LockKeys.channelFor("{orders}:1")).isEqualTo("redisson_lock__channel:{orders}:1");
    }

    @Test
    void slotMatchesRedisClusterReferenceValues() {
        // Values from the Redis Cluster specification / CLUSTER KEYSLOT.
        assertThat(LockKeys.slot("123456789")).isEqualTo(0x31C3 & 16383);
        assertThat(LockKeys.slot("foo")).isEqualTo(12182);
        assertThat(LockKeys.slot("{user1000}.following")).isEqualTo(LockKeys.slot("{user1000}.followers"));
    }
}
