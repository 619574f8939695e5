package io.latchkey.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code redis-cluster://} parsing, without a server. */
class RedisClusterUrisTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    @Test
    void parsesEverySeedWithTheSharedCredentialsAndTheDefaultPort() {
        List<RedisURI> seeds = RedisUris.parseCluster("redis-cluster://app:s3cret@10.0.0.1:7000, 10.0.0.2", TIMEOUT);
        assertThat(seeds).extracting(RedisUris::address).containsExactly("10.0.0.1:7000", "10.0.0.2:6379");
        assertThat(seeds).allSatisfy(seed -> {
            assertThat(UriCredentials.user(seed)).isEqualTo("app");
            assertThat(UriCredentials.password(seed)).isEqualTo("s3cret");
            assertThat(seed.getTimeout()).isEqualTo(TIMEOUT);
        });
        assertThat(RedisUris.clusterAddress(seeds)).isEqualTo("10.0.0.1:7000,10.0.0.2:6379");
    }

    @Test
    void aPasswordOnlyAndNoCredentialsParse() {
        assertThat(UriCredentials.password(RedisUris.parseCluster("redis-cluster://:pw@h:1", TIMEOUT).get(0)))
                .isEqualTo("pw");
        assertThat(UriCredentials.password(RedisUris.parseCluster("REDIS-CLUSTER://h:1", TIMEOUT).get(0))).isNull();
    }

    @Test
    void badUrisAreRefusedWithTheReasonAndWithoutThePassword() {
        assertThatThrownBy(() -> RedisUris.parseCluster("redis-cluster://", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names no seed node");
        assertThatThrownBy(() -> RedisUris.parseCluster("redis-cluster://u:s3cret@ ", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("names no seed node")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RedisUris.parseCluster("redis-cluster://h:1,", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty seed");
        assertThatThrownBy(() -> RedisUris.parseCluster("redis-cluster://u:s3cret@h:1/2", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("only database 0")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> RedisUris.parseCluster("redis-cluster://u:s3cret@h:notaport", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("malformed seed 'h:notaport'")
                .hasMessageNotContaining("s3cret")
                .satisfies(e -> assertThat(String.valueOf(e.getCause())).doesNotContain("s3cret"));
        assertThatThrownBy(() -> RedisUris.parseCluster("redis://h:1", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must start with redis-cluster://");
    }
}
