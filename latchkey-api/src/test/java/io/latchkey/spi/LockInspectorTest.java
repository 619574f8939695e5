package io.latchkey.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class LockInspectorTest {

    @Test
    void globMatchesStarAndQuestionMark() {
        assertThat(LockInspector.matches(null, "anything")).isTrue();
        assertThat(LockInspector.matches("*", "")).isTrue();
        assertThat(LockInspector.matches("order:*", "order:42")).isTrue();
        assertThat(LockInspector.matches("order:*", "invoice:42")).isFalse();
        assertThat(LockInspector.matches("*:4?", "order:42")).isTrue();
        assertThat(LockInspector.matches("*:4?", "order:4")).isFalse();
        assertThat(LockInspector.matches("a*b*c", "axxbyyc")).isTrue();
        assertThat(LockInspector.matches("a*b*c", "axxbyy")).isFalse();
        assertThat(LockInspector.matches("exact", "exact")).isTrue();
        assertThat(LockInspector.matches("exact", "exactly")).isFalse();
    }

    @Test
    void lockInfoChecksItsFields() {
        LockInfo info = new LockInfo("order:1", "client:1", 2, OptionalLong.of(7), Optional.of(Duration.ofSeconds(3)),
                OptionalInt.empty());
        assertThat(info.holdCount()).isEqualTo(2);
        assertThatThrownBy(() -> new LockInfo("x", "o", 0, OptionalLong.empty(), Optional.empty(), OptionalInt.empty()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("holdCount must be positive but was 0");
        assertThatThrownBy(() -> new LockInfo("x", "o", 1, OptionalLong.empty(), Optional.of(Duration.ofMillis(-1)),
                OptionalInt.empty())).isInstanceOf(IllegalArgumentException.class);
        assertThat(info.kind()).isEqualTo(LockInfo.LOCK);
        assertThat(info.detail()).isEmpty();
        assertThatThrownBy(() -> new LockInfo("x", "o", 1, OptionalLong.empty(), Optional.empty(),
                OptionalInt.empty(), "", "")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kind must not be empty");
        assertThatThrownBy(() -> new LockInfo("x", "o", 1, OptionalLong.empty(), Optional.empty(),
                OptionalInt.empty(), null, "")).isInstanceOf(NullPointerException.class).hasMessage("kind");
    }
}
