package io.latchkey.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.spi.LockInfo;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** What the console makes of successive polls: new holds, renewals, how holds end, and when it publishes. */
class ConsoleStateTest {

    private final ConsoleState state = new ConsoleState("test", "*", 500, new ConsoleAudit(null));

    private static ConsoleRow row(String name, String owner, long token, long leaseMs) {
        LockInfo info = new LockInfo(name, owner, 1, OptionalLong.of(token), Optional.of(Duration.ofMillis(leaseMs)),
                OptionalInt.empty());
        return ConsoleRow.of(List.of(info), UnaryOperator.identity()).get(0);
    }

    @Test
    void publishesChangesNotLeaseCountdowns() {
        long v0 = state.snapshot().version();
        assertThat(state.update(List.of(row("a", "c1:lease-1", 7, 6000)), 1_000, false)).isTrue();
        long v1 = state.snapshot().version();
        assertThat(v1).isGreaterThan(v0);
        assertThat(state.update(List.of(row("a", "c1:lease-1", 7, 5500)), 1_500, false)).as("lease only").isFalse();
        assertThat(state.snapshot().version()).isEqualTo(v1);
        assertThat(state.update(List.of(row("a", "c1:lease-1", 7, 5000)), 2_000, true)).isFalse();
        assertThat(state.snapshot().version()).as("the periodic refresh publishes").isGreaterThan(v1);
    }

    @Test
    void aLeaseThatGrowsAgainRenews() {
        state.update(List.of(row("a", "c1:lease-1", 7, 6000)), 1_000, false);
        state.update(List.of(row("a", "c1:lease-1", 7, 5500)), 1_500, false);
        assertThat(state.snapshot().json()).contains("\"renews\":false");
        assertThat(state.update(List.of(row("a", "c1:lease-1", 7, 6000)), 2_000, false)).isTrue();
        assertThat(state.snapshot().json()).contains("\"renews\":true");
    }

    @Test
    void holdsEndAsReleasedExpiredOrForceUnlocked() {
        state.update(List.of(row("a", "c1:lease-1", 1, 6000), row("b", "c1:lease-2", 2, 400),
                row("c", "c2:lease-1", 3, 6000)), 1_000, false);
        state.endAs(ConsoleState.key("c", LockInfo.LOCK, "c2:lease-1", 3), "force-unlocked");
        state.update(List.of(row("c", "c3:lease-1", 4, 6000)), 1_500, false);
        String json = state.snapshot().json();
        assertThat(json).contains("\"name\":\"a\",\"kind\":\"lock\",\"owner\":\"c1:lease-1\"")
                .containsPattern("\"name\":\"a\".*\"end\":1500,\"endReason\":\"released\"")
                .containsPattern("\"name\":\"b\".*\"end\":1500,\"endReason\":\"expired\"")
                .containsPattern("\"token\":3.*\"end\":1500,\"endReason\":\"force-unlocked\"")
                .containsPattern("\"token\":4.*\"end\":null");
        assertThat(state.holdsOf("c")).hasSize(1).allMatch(h -> h.token == 4);
    }

    @Test
    void aFailedPollIsShownAndClearedByTheNextOne() {
        state.update(List.of(row("a", "c1:lease-1", 1, 6000)), 1_000, false);
        state.failed("cannot list the locks: connection refused", 1_500);
        assertThat(state.snapshot().json()).contains("\"error\":\"cannot list the locks: connection refused\"")
                .as("the last rows stay").contains("\"name\":\"a\"");
        assertThat(state.update(List.of(row("a", "c1:lease-1", 1, 5000)), 2_000, false)).isTrue();
        assertThat(state.snapshot().json()).contains("\"error\":null");
    }

    @Test
    void anElectionIsOneRowWithItsLeaderAndTerm() {
        List<ConsoleRow> rows = ConsoleRow.of(List.of(
                new LockInfo("latchkey.election:billing", "c1:lease-4", 1, OptionalLong.of(12),
                        Optional.of(Duration.ofSeconds(5)), OptionalInt.empty()),
                new LockInfo("latchkey.leader:7:billing/12/1700000000000/node-7", "c1:lease-5", 1,
                        OptionalLong.of(13), Optional.of(Duration.ofSeconds(5)), OptionalInt.empty())), UnaryOperator.identity());
        assertThat(rows).hasSize(1);
        assertThat(rows.get(0).name()).isEqualTo("billing");
        assertThat(rows.get(0).kind()).isEqualTo("election");
        assertThat(rows.get(0).detail()).isEqualTo("leader node-7, term 12");
        assertThat(rows.get(0).heldSince()).isEqualTo(1_700_000_000_000L);
    }

    @Test
    void jsonEscapesEverythingThatCouldEndAScriptOrAnAttribute() {
        String json = new ConsoleJson().beginObject().field("name", "</script><img src=x onerror='a'>&\"\\\n\u2028")
                .endObject().toString();
        assertThat(json).doesNotContain("<", ">", "'", "&", "\u2028")
                .isEqualTo("{\"name\":\"\\u003c/script\\u003e\\u003cimg src=x onerror=\\u0027a\\u0027\\u003e"
                        + "\\u0026\\\"\\\\\\n\\u2028\"}");
    }
}
