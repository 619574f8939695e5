package io.latchkey.console;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The console's builder refuses what it cannot serve, naming the value. */
class LockConsoleBuilderTest {

    @Test
    void refusesAClientThatCannotListItsLocks() {
        LockClient blind = (LockClient) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {LockClient.class}, (proxy, method, args) -> null);
        assertThatThrownBy(() -> LockConsole.builder(blind)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("does not support");
    }

    @Test
    void refusesBadSettings() {
        try (LockClient client = LockClient.connect("mem://console-builder-test")) {
            LockConsole.Builder b = LockConsole.builder(client);
            assertThatThrownBy(() -> b.interval(Duration.ofMillis(10))).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("from 50ms to 1m but was 10 ms");
            assertThatThrownBy(() -> b.pattern("")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> b.maxStreams(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("was 0");
            assertThatThrownBy(() -> b.auditFile(Path.of("/nonexistent-dir/audit.log")).build())
                    .isInstanceOf(UncheckedIOException.class).hasMessageContaining("/nonexistent-dir/audit.log");
        }
    }
}
