package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.LockClient;
import io.latchkey.redis.RedisLockClient;
import io.latchkey.testing.RedisServer;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The client built on the application's own Lettuce RedisClient, against a real redis-server. */
class ExistingRedisClientBeanTest {

    private static RedisServer redis;

    @BeforeAll
    static void startServer() {
        redis = RedisServer.standalone().start();
    }

    @AfterAll
    static void stopServer() {
        redis.close();
    }

    @Test
    void aRedisClientBeanWinsOverADataSourceAndHealthFollowsTheServer() {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:spring-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1");
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class,
                        LatchkeyActuatorAutoConfiguration.class, LatchkeyHealthAutoConfiguration.class))
                .withBean(RedisClient.class, () -> RedisClient.create(redis.uri()),
                        definition -> definition.setDestroyMethodName("shutdown"))
                .withBean(DataSource.class, () -> h2)
                .withBean(LockedTestService.class)
                .withPropertyValues("latchkey.operation-timeout=1s", "latchkey.namespace=spring-test:")
                .run(context -> {
                    LockClient client = context.getBean(LockClient.class);
                    assertThat(client).isInstanceOf(RedisLockClient.class);
                    assertThat(context.getBean(LockedTestService.class).shipNow(1)).isEqualTo("shipped 1");
                    LatchkeyHealthIndicator health = context.getBean(LatchkeyHealthIndicator.class);
                    assertThat(health.health().getStatus()).isEqualTo(Status.UP);

                    redis.stop();
                    try {
                        await().atMost(Duration.ofSeconds(30))
                                .until(() -> health.health().getStatus().equals(Status.DOWN));
                        assertThat(health.health().getDetails().get("error").toString()).isNotEmpty();
                    } finally {
                        redis.start();
                    }
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> health.health().getStatus().equals(Status.UP));
                });
    }
}
