package io.latchkey.quarkus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quarkus.runtime.LaunchMode;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which URI the client connects to, by launch mode (no Quarkus boot). */
class ProdModeUriTest {

    @Test
    void prodModeWithoutUriFailsNamingTheProperty() {
        assertThatThrownBy(() -> LatchkeyProducer.uri(config(Optional.empty()), LaunchMode.NORMAL))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("latchkey.uri is not set");
        assertThatThrownBy(() -> LatchkeyProducer.uri(config(Optional.of(" ")), LaunchMode.NORMAL))
                .hasMessageContaining("latchkey.uri");
    }

    @Test
    void devAndTestModeDefaultToMem() {
        assertThat(LatchkeyProducer.uri(config(Optional.empty()), LaunchMode.DEVELOPMENT)).isEqualTo("mem://latchkey");
        assertThat(LatchkeyProducer.uri(config(Optional.empty()), LaunchMode.TEST)).isEqualTo("mem://latchkey");
        assertThat(LatchkeyProducer.uri(config(Optional.of("redis://h:1")), LaunchMode.NORMAL))
                .isEqualTo("redis://h:1");
    }

    private static LatchkeyConfig config(Optional<String> uri) {
        return new LatchkeyConfig() {
            @Override
            public Optional<String> uri() {
                return uri;
            }

            @Override
            public Duration watchdogTimeout() {
                return Duration.ofSeconds(30);
            }

            @Override
            public Duration operationTimeout() {
                return Duration.ofSeconds(5);
            }

            @Override
            public Optional<String> namespace() {
                return Optional.empty();
            }

            @Override
            public Optional<String> clientName() {
                return Optional.empty();
            }

            @Override
            public String healthProbeName() {
                return "latchkey:health";
            }

            @Override
            public boolean metricsNameTag() {
                return false;
            }
        };
    }
}
