package io.latchkey.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.core.mem.MemLockClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

class LatchkeyActuatorTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class,
                    LatchkeyActuatorAutoConfiguration.class, LatchkeyHealthAutoConfiguration.class))
            .withPropertyValues("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri(),
                    "management.endpoints.web.exposure.include=latchkey");

    @Test
    @SuppressWarnings("unchecked")
    void theEndpointListsHeldLocksMatchingThePattern() {
        runner.run(context -> {
            LockClient client = context.getBean(LockClient.class);
            DistributedLock order = client.lock("order:1");
            DistributedLock report = client.lock("report");
            order.lock();
            report.lock();
            try {
                LatchkeyEndpoint endpoint = context.getBean(LatchkeyEndpoint.class);
                Map<String, Object> all = endpoint.locks(null);
                assertThat(all).containsEntry("clientId", client.clientId()).containsEntry("inspect", "supported");
                assertThat((List<Map<String, Object>>) all.get("locks")).extracting(m -> m.get("name"))
                        .containsExactly("order:1", "report");

                List<Map<String, Object>> orders = (List<Map<String, Object>>) endpoint.locks("order:*").get("locks");
                assertThat(orders).hasSize(1);
                assertThat(orders.get(0)).containsEntry("name", "order:1").containsEntry("kind", "lock")
                        .containsEntry("holdCount", 1);
                assertThat(orders.get(0).get("owner").toString()).startsWith(client.clientId());
                assertThat(orders.get(0).get("fencingToken")).isEqualTo(order.fencingToken().getAsLong());
                assertThat(orders.get(0).get("clientName")).isEqualTo(io.latchkey.ClientOptions.defaults().clientName());
                assertThat(orders.get(0).get("heldSince")).isNotNull();
            } finally {
                order.unlock();
                report.unlock();
            }
            assertThat((List<?>) context.getBean(LatchkeyEndpoint.class).locks(null).get("locks")).isEmpty();
        });
    }

    @Test
    void theEndpointIsOnlyThereWhenExposed() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LatchkeyAutoConfiguration.class,
                        LatchkeyActuatorAutoConfiguration.class, LatchkeyHealthAutoConfiguration.class))
                .withPropertyValues("latchkey.uri=" + LatchkeyAutoConfigurationTest.memUri())
                .run(context -> {
                    assertThat(context).doesNotHaveBean(LatchkeyEndpoint.class);
                    assertThat(context).hasSingleBean(LatchkeyHealthIndicator.class);
                });
    }

    @Test
    void healthIsDownWithTheReasonWhileTheBackendIsUnreachable() {
        runner.withPropertyValues("latchkey.operation-timeout=500ms").run(context -> {
            MemLockClient client = (MemLockClient) context.getBean(LockClient.class);
            LatchkeyHealthIndicator health = context.getBean(LatchkeyHealthIndicator.class);
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);

            client.setServerAvailable(false);
            try {
                Health down = health.health();
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat(down.getDetails()).containsEntry("clientId", client.clientId());
                assertThat(down.getDetails().get("error").toString()).isNotEmpty();
            } finally {
                client.setServerAvailable(true);
            }
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        });
    }

    @Test
    void healthCanBeSwitchedOff() {
        runner.withPropertyValues("management.health.latchkey.enabled=false").run(context ->
                assertThat(context).doesNotHaveBean(LatchkeyHealthIndicator.class));
    }
}
