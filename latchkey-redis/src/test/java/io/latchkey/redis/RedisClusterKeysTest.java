package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What keeps every script's keys in one cluster slot, without a server (RedisClusterTest checks on one). */
class RedisClusterKeysTest {

    @Test
    void theLockChannelIsRedissonsWheneverThatSharesTheLocksSlot() {
        for (String name : List.of("orders", "a:b:c", "{tag}rest", "x{tag}y")) {
            LockKeys keys = new LockKeys("ns/", name, true);
            assertThat(keys.channel).isEqualTo(LockKeys.channelFor(keys.lockKey));
            assertThat(LockKeys.slot(keys.channel)).isEqualTo(LockKeys.slot(keys.lockKey));
        }
    }

    @Test
    void namesThatBreakRedissonsChannelRuleGetAChannelInTheLocksSlot() {
        for (String name : List.of("brace{open", "close}brace", "empty{}tag", "}{", "a{b}c}")) {
            LockKeys keys = new LockKeys("", name, true);
            assertThat(LockKeys.slot(keys.channel)).as(name).isEqualTo(LockKeys.slot(keys.lockKey));
            assertThat(LockKeys.slot(keys.tokenKey)).as(name).isEqualTo(LockKeys.slot(keys.lockKey));
            assertThat(keys.channel).startsWith(LockKeys.CHANNEL_PREFIX + ":");
        }
        // Standalone keeps Redisson's channel for every name.
        assertThat(new LockKeys("", "brace{open", false).channel).isEqualTo("redisson_lock__channel:brace{open");
    }

    @Test
    void scriptsHaveAShardedVariantThatPublishesWithSpublish() {
        LockScripts.Script release = LockScripts.RELEASE;
        assertThat(release.sharded().source).contains("'spublish'").doesNotContain("'publish'");
        assertThat(release.sharded().sha).isNotEqualTo(release.sha).isEqualTo(LockScripts.sha1Hex(
                release.sharded().source));
        assertThat(release.sharded().name).isEqualTo(release.name);
        assertThat(LockScripts.ACQUIRE.sharded()).isSameAs(LockScripts.ACQUIRE);
        assertThat(FairLockScripts.RELEASE.sharded().source).doesNotContain("'publish'");
    }

    @Test
    void renewalBatchesKeepOneSlotEachOnAClusterAndAreBounded() {
        List<String> keys = new java.util.ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            keys.add("k" + (i % 50));
        }
        List<List<String>> clustered = RenewBatches.split(keys, 7, true, k -> k);
        assertThat(clustered).allSatisfy(batch -> {
            assertThat(batch).hasSizeLessThanOrEqualTo(7);
            assertThat(batch.stream().map(LockKeys::slot).distinct()).hasSize(1);
        });
        assertThat(clustered.stream().mapToInt(List::size).sum()).isEqualTo(1_000);
        Map<Integer, Long> perSlot = keys.stream().collect(Collectors.groupingBy(LockKeys::slot,
                Collectors.counting()));
        assertThat(clustered.size()).isLessThanOrEqualTo(perSlot.values().stream()
                .mapToInt(n -> (int) ((n + 6) / 7)).sum());

        List<List<String>> standalone = RenewBatches.split(keys, 512, false, k -> k);
        assertThat(standalone).extracting(List::size).containsExactly(512, 488);
    }
}
