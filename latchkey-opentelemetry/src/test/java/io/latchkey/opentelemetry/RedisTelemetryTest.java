package io.latchkey.opentelemetry;

import io.latchkey.ClientOptions;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@link TelemetryContract} on a real {@code redis-server}. */
class RedisTelemetryTest extends TelemetryContract {

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    @Override
    String uri() {
        return redis.uri();
    }

    @Override
    String backend() {
        return "redis";
    }

    @Override
    ClientOptions.Builder options() {
        return ClientOptions.builder().operationTimeout(Duration.ofSeconds(3));
    }
}
