package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConnectorTest {

    @Test
    void schemesAndHostsAsUsersWriteThem() {
        assertThat(Connector.scheme("redis://h:1")).isEqualTo("redis://");
        assertThat(Connector.scheme("jdbc:postgresql://h/db")).isEqualTo("jdbc:postgresql:");
        assertThat(Connector.backendName("jdbc:postgresql://h/db")).isEqualTo("postgresql");
        assertThat(Connector.backendName("redis-sentinel://h")).isEqualTo("redis-sentinel");
        assertThat(Connector.hosts("redis://user:pw@h1:6379/0")).isEqualTo("h1:6379");
        assertThat(Connector.hosts("zookeeper://a:1,b:2/chroot")).isEqualTo("a:1,b:2");
        assertThat(Connector.hosts("jdbc:mariadb://db:3306/app?password=x")).isEqualTo("db:3306");
        assertThat(Connector.hosts("jdbc:h2:file:/tmp/x")).isEqualTo("an embedded H2 database");
    }

    @Test
    void unknownSchemeListsWhatIsSupported() {
        assertThatThrownBy(() -> Connector.checkScheme("etcdd://u:secret99@h:2379"))
                .isInstanceOf(CliException.class)
                .hasMessageContaining("unsupported URI scheme 'etcdd://'")
                .hasMessageContaining("redis://")
                .hasMessageNotContaining("secret99");
    }

    /** The PostgreSQL driver gets a login timeout of its own, so that it gives up within the command's timeout. */
    @Test
    void thePostgresqlDriverGetsTheTimeoutAsItsLoginTimeout() {
        java.time.Duration five = java.time.Duration.ofSeconds(5);
        assertThat(Connector.withDriverTimeouts("jdbc:postgresql://h/db", five))
                .isEqualTo("jdbc:postgresql://h/db?loginTimeout=5");
        assertThat(Connector.withDriverTimeouts("jdbc:postgresql://h/db?user=app", java.time.Duration.ofMillis(1500)))
                .isEqualTo("jdbc:postgresql://h/db?user=app&loginTimeout=2");
        assertThat(Connector.withDriverTimeouts("jdbc:postgresql://h/db?loginTimeout=30", five))
                .isEqualTo("jdbc:postgresql://h/db?loginTimeout=30");
        assertThat(Connector.withDriverTimeouts("redis://h:6379", five)).isEqualTo("redis://h:6379");
    }
}
