package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.core.mem.MemLockClient;
import io.latchkey.jdbc.JdbcLockClient;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

class LatchkeyAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class));

    static String memUri() {
        return "mem://spring-" + UUID.randomUUID();
    }

    @Test
    void uriCreatesTheClientAndContextCloseClosesIt() {
        AtomicReference<LockClient> seen = new AtomicReference<>();
        runner.withPropertyValues("latchkey.uri=" + memUri()).run(context -> {
            assertThat(context).hasSingleBean(LockClient.class);
            LockClient client = context.getBean(LockClient.class);
            assertThat(client).isInstanceOf(MemLockClient.class);
            assertThat(client.lock("a").tryLock()).isTrue();
            client.lock("a").unlock();
            seen.set(client);
        });
        assertThatThrownBy(() -> seen.get().lock("a"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void propertiesReachTheClientOptions() {
        runner.withPropertyValues("latchkey.uri=" + memUri(), "latchkey.watchdog-timeout=3s",
                "latchkey.operation-timeout=750ms", "latchkey.namespace=orders:", "latchkey.client-name=billing-7")
                .run(context -> {
            ClientOptions options = ((MemLockClient) context.getBean(LockClient.class)).options();
            assertThat(options.watchdogTimeout()).isEqualTo(Duration.ofSeconds(3));
            assertThat(options.operationTimeout()).isEqualTo(Duration.ofMillis(750));
            assertThat(options.namespace()).isEqualTo("orders:");
            assertThat(options.clientName()).isEqualTo("billing-7");
        });
    }

    @Test
    void aDurationThatIsNotOneFailsNamingTheProperty() {
        runner.withPropertyValues("latchkey.uri=" + memUri(), "latchkey.watchdog-timeout=5 parsecs").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("5 parsecs");
            assertThat(causeMessages(context.getStartupFailure()))
                    .contains("Failed to bind properties under 'latchkey.watchdog-timeout'");
        });
    }

    @Test
    void aDurationOutOfRangeFailsNamingThePropertyAndTheReason() {
        runner.withPropertyValues("latchkey.uri=" + memUri(), "latchkey.watchdog-timeout=10ms").run(context -> {
            assertThat(context).hasFailed();
            assertThat(causeMessages(context.getStartupFailure())).contains("property watchdog-timeout")
                    .contains("watchdogTimeout must be at least 30ms but was PT0.01S");
        });
        runner.withPropertyValues("latchkey.uri=" + memUri(), "latchkey.operation-timeout=0s").run(context -> {
            assertThat(context).hasFailed();
            assertThat(causeMessages(context.getStartupFailure())).contains("property operation-timeout")
                    .contains("operationTimeout must be positive but was PT0S");
        });
        runner.withPropertyValues("latchkey.uri=" + memUri(), "latchkey.namespace=bad\u0007name").run(context -> {
            assertThat(context).hasFailed();
            assertThat(causeMessages(context.getStartupFailure())).contains("property namespace")
                    .contains("namespace must not contain control characters");
        });
    }

    @Test
    void aBadUriFailsWithTheBackendsMessage() {
        runner.withPropertyValues("latchkey.uri=nosuch://host").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'nosuch:'").hasMessageContaining("mem://");
        });
    }

    @Test
    void anApplicationsOwnClientIsKept() {
        MemLockClient own = MemLockClient.create("spring-own-" + UUID.randomUUID());
        runner.withPropertyValues("latchkey.uri=" + memUri())
                .withBean("myLockClient", LockClient.class, () -> own)
                .run(context -> {
                    assertThat(context).hasSingleBean(LockClient.class);
                    assertThat(context.getBean(LockClient.class)).isSameAs(own);
                });
        own.close();
    }

    @Test
    void nothingToBuildFromFailsWithWhatWasLookedFor() {
        runner.run(context -> {
            assertThat(context).hasFailed();
            Throwable root = context.getStartupFailure();
            while (root.getCause() != null && !(root instanceof LockClientNotConfiguredException)) {
                root = root.getCause();
            }
            assertThat(root).isInstanceOf(LockClientNotConfiguredException.class)
                    .hasMessageContaining("latchkey.uri is not set")
                    .hasMessageContaining("RedisClient")
                    .hasMessageContaining("CuratorFramework")
                    .hasMessageContaining("DataSource");
            FailureAnalysis analysis = new LockClientNotConfiguredFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getAction()).contains("latchkey.uri", "redis://", "zookeeper://", "etcd://",
                    "jdbc:postgresql://", "file://", "mem://", "latchkey-etcd");
        });
    }

    @Test
    void anExistingDataSourceBuildsTheJdbcClientWhichLeavesItOpen() {
        runner.withUserConfiguration(H2Config.class).withPropertyValues("latchkey.jdbc.table-name=app_locks")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(client).isInstanceOf(JdbcLockClient.class);
                    assertThat(client.lock("job").tryLock()).isTrue();
                    assertThat(client.lock("job").isLocked()).isTrue();
                    client.lock("job").unlock();
                    try (var c = context.getBean(DataSource.class).getConnection();
                         var rs = c.getMetaData().getTables(null, null, "APP_LOCKS", null)) {
                        assertThat(rs.next()).as("lease table created under its configured name").isTrue();
                    }
                });
    }

    @Test
    void aMissingTableIsNotCreatedWhenCreateTableIsOff() {
        runner.withUserConfiguration(H2Config.class).withPropertyValues("latchkey.jdbc.create-table=false")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().hasMessageContaining("latchkey_locks");
                });
    }

    /** Every message of the cause chain, one a line: Spring nests the binding error a few levels down. */
    static String causeMessages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }

    @Configuration(proxyBeanMethods = false)
    static class H2Config {
        @Bean
        DataSource dataSource() {
            JdbcDataSource ds = new JdbcDataSource();
            ds.setURL("jdbc:h2:mem:spring-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
            return ds;
        }
    }
}
