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
        assertThat(UriCredentials.user(uri)).isEqualTo("alice");
        assertThat(UriCredentials.password(uri)).isEqualTo("s3cret");
        assertThat(uri.getTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(uri.isSsl()).isFalse();
        assertThat(RedisUris.address(uri)).isEqualTo("db.example:6380");
        assertThat(uri.toString()).doesNotContain("s3cret");

        RedisURI secure = RedisUris.parse("rediss://:only-pass@localhost", Duration.ofSeconds(1));
        assertThat(secure.isSsl()).isTrue();
        assertThat(secure.getPort()).isEqualTo(6379);
        assertThat(UriCredentials.password(secure)).isEqualTo("only-pass");
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

    @Test
    void parsesSentinelUrisWithTheMasterNameAsThePath() {
        RedisURI uri = RedisUris.parse("redis-sentinel://:s3cret@10.0.0.1:26379,10.0.0.2:26380/orders",
                Duration.ofSeconds(2));
        assertThat(uri.getSentinelMasterId()).isEqualTo("orders");
        assertThat(uri.getSentinels()).extracting(RedisURI::getHost).containsExactly("10.0.0.1", "10.0.0.2");
        assertThat(uri.getSentinels()).extracting(RedisURI::getPort).containsExactly(26379, 26380);
        assertThat(uri.getDatabase()).isZero();
        assertThat(uri.getTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThat(RedisUris.address(uri)).isEqualTo("master 'orders' via sentinels 10.0.0.1:26379,10.0.0.2:26380");
        assertThat(uri.toString()).doesNotContain("s3cret");

        RedisURI withDb = RedisUris.parse("redis-sentinel://h1:1,h2:2/orders/3?replicaAcks=1", Duration.ofSeconds(1));
        assertThat(withDb.getSentinelMasterId()).isEqualTo("orders");
        assertThat(withDb.getDatabase()).isEqualTo(3);

        RedisURI lettuceForm = RedisUris.parse("redis-sentinel://h1:1,h2:2/2#orders", Duration.ofSeconds(1));
        assertThat(lettuceForm.getSentinelMasterId()).isEqualTo("orders");
        assertThat(lettuceForm.getDatabase()).isEqualTo(2);

        RedisURI tls = RedisUris.parse("rediss-sentinel://h1:1/orders", Duration.ofSeconds(1));
        assertThat(tls.getSentinelMasterId()).isEqualTo("orders");
        assertThat(RedisUris.isSentinel("rediss-sentinel://h1:1/orders")).isTrue();
        assertThat(RedisUris.isSentinel("redis://h1:1")).isFalse();
    }

    @Test
    void sentinelUrisWithoutAMasterOrWithABadPathAreRefusedWithoutThePassword() {
        assertThatThrownBy(() -> RedisUris.parse("redis-sentinel://:pa55word@h1:1,h2:2", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("it names no master: use redis-sentinel://host:port[,host:port]/mastername")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pa55word"));
        assertThatThrownBy(() -> RedisUris.parse("redis-sentinel://:pa55word@h1:1/a/1/x", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the path must be /mastername or /mastername/database")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pa55word"));
        assertThatThrownBy(() -> RedisUris.parse("redis-sentinel://:pa55word@h1:1/orders/notadb",
                Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pa55word"));
    }

    @Test
    void latchkeysOwnQueryParametersAreTakenOutBeforeLettuceSeesThem() {
        assertThat(RedisUris.withoutOwnParameters("redis://h:1/2?replicaAcks=1&timeout=5s&replicaAckTimeout=50ms"))
                .isEqualTo("redis://h:1/2?timeout=5s");
        assertThat(RedisUris.withoutOwnParameters("redis://h:1?replicaAcks=1")).isEqualTo("redis://h:1");
        assertThat(RedisUris.withoutOwnParameters("redis-sentinel://h:1?replicaAcks=1#m"))
                .isEqualTo("redis-sentinel://h:1#m");
        RedisOptions options = RedisUris.options("redis://h:1?timeout=5s&replicaAckTimeout=2s&replicaAcks=2");
        assertThat(options.replicaAcks()).isEqualTo(2);
        assertThat(options.replicaAckTimeout()).isEqualTo(Duration.ofSeconds(2));
        assertThatThrownBy(() -> RedisUris.options("redis://h:1?replicaAcks=1&replicaAckTimeout=250"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaAckTimeout in Redis URI 'redis://h:1?replicaAcks=1&replicaAckTimeout=250'"
                        + " must be a duration such as 100ms or 2s but was '250'");
        assertThat(RedisUris.options("redis://h:1")).isEqualTo(RedisOptions.defaults());
    }

    @Test
    @SuppressWarnings("deprecation")
    void valkeySchemesMeanTheirRedisCounterparts() {
        RedisURI plain = RedisUris.parse("valkey://alice:s3cret@db.example:6380/4", Duration.ofSeconds(3));
        assertThat(plain.getHost()).isEqualTo("db.example");
        assertThat(plain.getPort()).isEqualTo(6380);
        assertThat(plain.getDatabase()).isEqualTo(4);
        assertThat(UriCredentials.user(plain)).isEqualTo("alice");
        assertThat(plain.isSsl()).isFalse();
        assertThat(RedisUris.parse("VALKEYS://h", Duration.ofSeconds(1)).isSsl()).isTrue();

        RedisURI sentinel = RedisUris.parse("valkey-sentinel://10.0.0.1:26379,10.0.0.2/orders/2?replicaAcks=1",
                Duration.ofSeconds(2));
        assertThat(sentinel.getSentinelMasterId()).isEqualTo("orders");
        assertThat(sentinel.getSentinels()).extracting(RedisURI::getHost).containsExactly("10.0.0.1", "10.0.0.2");
        assertThat(sentinel.getDatabase()).isEqualTo(2);
        assertThat(RedisUris.options("valkey-sentinel://h:1/m?replicaAcks=1").replicaAcks()).isEqualTo(1);
        assertThat(RedisUris.parse("valkeys-sentinel://h:1/m", Duration.ofSeconds(1)).getSentinels().get(0).isSsl())
                .isTrue();
        assertThat(RedisUris.parseCluster("valkey-cluster://:pw@h1:7000,h2:7001", Duration.ofSeconds(1)))
                .extracting(RedisURI::getPort).containsExactly(7000, 7001);

        assertThat(RedisUris.asRedisScheme("valkey-cluster://h:1")).isEqualTo("redis-cluster://h:1");
        assertThat(RedisUris.asRedisScheme("valkeyx://h:1")).isEqualTo("valkeyx://h:1");
        assertThat(RedisUris.asRedisScheme("redis://h:1")).isEqualTo("redis://h:1");
        assertThat(new RedisLockClientProvider().uriPrefixes())
                .contains("valkey://", "valkeys://", "valkey-sentinel://", "valkeys-sentinel://", "valkey-cluster://");
    }

    @Test
    void malformedValkeyUrisAreNamedAsWrittenWithoutThePassword() {
        assertThatThrownBy(() -> RedisUris.parse("valkey://bob:pa55word@host:1/notadb", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'valkey://***@host:1/notadb'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pa55word"));
        assertThatThrownBy(() -> RedisUris.parse("valkey-sentinel://:pa55word@h1:1", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'valkey-sentinel://***@h1:1'")
                .hasMessageContaining("names no master")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pa55word"));
        assertThatThrownBy(() -> RedisUris.parseCluster("valkey-cluster://u:pa55word@h:1/2", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'valkey-cluster://***@h:1/2'")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("pa55word"));
    }
}
