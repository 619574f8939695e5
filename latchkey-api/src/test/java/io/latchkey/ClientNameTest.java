package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** {@link ClientOptions#clientName()}: its default, its checks, and how a {@link LockHolder} reads in messages. */
class ClientNameTest {

    @Test
    void theDefaultIsHostColonPidOfThisProcess() {
        String name = ClientOptions.defaults().clientName();
        assertThat(name).endsWith(":" + ProcessHandle.current().pid()).hasSizeBetween(3, 128);
        assertThat(name.chars().noneMatch(Character::isISOControl)).isTrue();
        assertThat(ClientOptions.builder().build().clientName()).isSameAs(name);
    }

    @Test
    void aGivenNameIsKeptAndCopiedByToBuilder() {
        ClientOptions options = ClientOptions.builder().clientName("billing-7 ✓ 𝄞").build();
        assertThat(options.clientName()).isEqualTo("billing-7 ✓ 𝄞");
        assertThat(options.toBuilder().build()).isEqualTo(options);
        assertThat(options.toBuilder().build().clientName()).isEqualTo("billing-7 ✓ 𝄞");
        assertThat(options).isNotEqualTo(ClientOptions.defaults());
        assertThat(ClientOptions.builder().clientName("x".repeat(128)).build().clientName()).hasSize(128);
    }

    @Test
    void badNamesAreRefusedWithTheReason() {
        ClientOptions.Builder b = ClientOptions.builder();
        assertThatThrownBy(() -> b.clientName(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.clientName("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clientName must be 1 to 128 characters but was 0");
        assertThatThrownBy(() -> b.clientName("x".repeat(129))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clientName must be 1 to 128 characters but was 129");
        assertThatThrownBy(() -> b.clientName("a\nb")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clientName must not contain control characters but had U+000A at index 1");
        assertThatThrownBy(() -> b.clientName("a\uD834")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("clientName must be well-formed UTF-16 but had a lone surrogate U+D834 at index 1");
        assertThatThrownBy(() -> b.clientName("\uDD1Ea")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lone surrogate U+DD1E at index 0");
        assertThat(b.build().clientName()).as("nothing set by the refused calls")
                .isEqualTo(ClientOptions.defaults().clientName());
    }

    @Test
    void aHolderReadsAsItsClientWithWhatTheBackendKnows() {
        LockHolder full = new LockHolder("c1:7", "billing-7:4242", Optional.of(Instant.parse("2026-01-01T12:00:01.5Z")),
                Optional.of(Duration.ofMillis(21_400)), OptionalLong.of(17), OptionalInt.of(2));
        assertThat(full).hasToString("billing-7:4242 since 2026-01-01T12:00:01Z, token 17, lease left 21 s, 2 waiters");
        LockHolder bare = new LockHolder("1b2c:9", LockHolder.UNKNOWN_CLIENT, Optional.empty(),
                Optional.of(Duration.ofMillis(800)), OptionalLong.empty(), OptionalInt.empty());
        assertThat(bare).hasToString("owner 1b2c:9, lease left 800 ms");
        assertThatThrownBy(() -> new LockHolder("o", "c", Optional.empty(), Optional.of(Duration.ofMillis(-1)),
                OptionalLong.empty(), OptionalInt.empty())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("leaseLeft must not be negative but was PT-0.001S");
    }
}
