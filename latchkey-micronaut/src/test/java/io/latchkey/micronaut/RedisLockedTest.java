package io.latchkey.micronaut;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.RedisServerExtension;
import io.micronaut.context.ApplicationContext;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import io.micronaut.test.support.TestPropertyProvider;
import jakarta.inject.Inject;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/** latchkey.uri on a real Redis: the application's @Locked and a second client exclude each other. */
@MicronautTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RedisLockedTest implements TestPropertyProvider {

    @RegisterExtension
    static final RedisServerExtension REDIS = RedisServerExtension.standalone();

    @Inject
    Orders orders;

    @Inject
    ApplicationContext context;

    @Override
    public Map<String, String> getProperties() {
        REDIS.start(); // Micronaut asks before the extension's beforeAll has run
        return Map.of("latchkey.uri", REDIS.uri(), "latchkey.namespace", "shop");
    }

    /** The application (and its client) stops before the Redis server does: the extensions' order is the reverse. */
    @AfterAll
    void stopTheApplicationBeforeTheServer() {
        context.stop();
    }

    @Test
    void aSecondClientIsExcludedWhileTheApplicationHoldsTheLockAndAfterwardsGetsIt() throws Exception {
        try (LockClient other = LockClient.connect(REDIS.uri(),
                io.latchkey.ClientOptions.builder().namespace("shop").build())) {
            long applicationToken = orders.token(5);
            LockLease lease = other.lock("order:5").acquire();
            try {
                assertThat(lease.fencingToken()).isGreaterThan(applicationToken);
                assertThatThrownBy(() -> orders.hold(5, new CountDownLatch(1), new CountDownLatch(0)))
                        .isInstanceOf(LockNotAcquiredException.class)
                        .hasMessageContaining("lock 'order:5' not acquired");
            } finally {
                lease.release();
            }
            assertThat(orders.token(5)).isGreaterThan(lease.fencingToken());
        }
    }
}
