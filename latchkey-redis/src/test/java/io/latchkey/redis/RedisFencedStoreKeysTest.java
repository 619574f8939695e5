package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The fenced store's keys share the lock key's Cluster hash slot and never equal a lock key of the same name. */
class RedisFencedStoreKeysTest {

    @Test
    void storeKeysShareTheLockKeysSlotWhateverBracesTheNameHas() {
        String[] namespaces = {"", "app:", "a{b}:", "x}y:"};
        String[] names = {"order:42", "{user:1}:cart", "weird}name", "a{}b", "{", "}{x}", "ключ"};
        String[] keys = {"stock", "{other}", "}", "a/b"};
        for (String ns : namespaces) {
            for (String name : names) {
                String lockKey = ns + name;
                String prefix = RedisFencedStoreOps.storePrefix(ns, lockKey);
                assertThat(prefix).as(lockKey).isNotEqualTo(lockKey).contains(RedisFencedStoreOps.STORE_SUFFIX);
                for (String key : keys) {
                    assertThat(LockKeys.slot(prefix + key)).as(prefix + key).isEqualTo(LockKeys.slot(lockKey));
                }
            }
        }
    }
}
