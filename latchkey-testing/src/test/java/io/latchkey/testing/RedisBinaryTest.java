package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class RedisBinaryTest {

    @RegisterExtension
    static RedisServerExtension valkey = RedisServerExtension.builder().binary(RedisBinary.VALKEY).build();

    @Test
    void theValkeyFixtureRunsValkeyServer() {
        assertThat(valkey.server().binary()).isEqualTo(RedisBinary.VALKEY);
        assertThat(valkey.uri()).isEqualTo("redis://127.0.0.1:" + valkey.port());
        assertThat((String) valkey.execute("INFO", "server")).contains("valkey_version:");
        assertThat(valkey.execute("SET", "k", "v")).isEqualTo("OK");
        assertThat(valkey.toString()).contains("valkey-server");
    }

    @Test
    void thePropertyPicksTheBinary() {
        String before = System.getProperty(RedisBinary.PROPERTY);
        try {
            System.clearProperty(RedisBinary.PROPERTY);
            assertThat(RedisBinary.configured()).isEqualTo(RedisBinary.REDIS);
            System.setProperty(RedisBinary.PROPERTY, "Valkey");
            assertThat(RedisBinary.configured()).isEqualTo(RedisBinary.VALKEY);
            assertThat(RedisServer.standalone().binary()).isEqualTo(RedisBinary.VALKEY);
            System.setProperty(RedisBinary.PROPERTY, "redis-server");
            assertThat(RedisBinary.configured()).isEqualTo(RedisBinary.REDIS);
            System.setProperty(RedisBinary.PROPERTY, "memcached");
            assertThatThrownBy(RedisBinary::configured)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("system property latchkey.redis.server must be redis or valkey but was 'memcached'");
        } finally {
            if (before == null) {
                System.clearProperty(RedisBinary.PROPERTY);
            } else {
                System.setProperty(RedisBinary.PROPERTY, before);
            }
        }
    }

    @Test
    void aMissingValkeyNamesTheBackportsInstallCommand() {
        assertThatThrownBy(() -> ServerProcess.requireBinary("no-such-valkey-server", RedisBinary.VALKEY.installHint()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("sudo apt-get install -t bookworm-backports valkey-server")
                .hasMessageContaining("scripts/install-test-servers.sh");
    }
}
