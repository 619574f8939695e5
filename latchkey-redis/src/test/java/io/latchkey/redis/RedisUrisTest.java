package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RedisUrisTest {

    @Test
    @SuppressWarnings("deprecation") // the plain getters are the simplest check of what was parsed
    void parsesUserPasswordDatabaseAndTls() {
        RedisURI uri = RedisUris.parse("redis://alice:s3cret@db.example:6380/4", Duration.ofSeconds(3));
        assertThat(uri.getHost()).isEqualTo("db.example");
        assertThat(uri.getPort()).isEqualTo(6380);
        assertThat(uri.getDatabase()).isEqualTo(4);
        assertThat(uri.getUsername()).isEqualTo("alice");
        assertThat(new String(uri.getPassword())).isEqualTo("s3cret");
        assertThat(uri.getTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(uri.isSsl()).isFalse();
        assertThat(RedisUris.address(uri)).isEqualTo("db.example:6380");
        assertThat(uri.toString()).doesNotContain("s3cret");

        RedisURI secure = RedisUris.parse("rediss://:only-pass@localhost", Duration.ofSeconds(1));
        assertThat(secure.isSsl()).isTrue();
        assertThat(secure.getPort()).isEqualTo(6379);
        assertThat(new String(secure.getPassword())).isEqualTo("only-pass");
    }

    @Test
    void malformedUrisNeverEchoThePassword() {
        assertThatThrownBy(() -> RedisUris.parse("redis://bob:pa55word@host:1/notadb", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("***")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pa55word"));
        assertThatThrownBy(() -> RedisUris.parse("redis://bob:pa55word@", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pa55word"));
    }

    @Test
    void redactsUserInfo() {
        assertThat(RedisUris.redact("redis://u:p@h:1/2")).isEqualTo("redis://***@h:1/2");
        assertThat(RedisUris.redact("redis://h:1")).isEqualTo("redis://h:1");
    }
}
