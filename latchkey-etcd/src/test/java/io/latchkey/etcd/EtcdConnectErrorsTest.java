package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** An etcd URI that reaches a server of another kind (here Redis) says so, and logs nothing of gRPC's on the way. */
class EtcdConnectErrorsTest {

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.standalone().start();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    @Test
    void anEtcdUriAtARedisPortIsNamedAsNotAnEtcdServerWithoutStrayLogLines() {
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Handler recorder = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel().intValue() >= Level.INFO.intValue()) {
                    logged.add(record);
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(recorder);
        Duration timeout = Duration.ofSeconds(2);
        long start = System.nanoTime();
        try {
            assertThatThrownBy(() -> LockClient.connect("etcd://127.0.0.1:" + redis.port(),
                    ClientOptions.builder().operationTimeout(timeout).build()))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("not an etcd server")
                    .hasMessageContaining("127.0.0.1:" + redis.port());
        } finally {
            root.removeHandler(recorder);
        }
        assertThat((System.nanoTime() - start) / 1_000_000).as("within the timeout")
                .isLessThan(timeout.toMillis() + 500);
        assertThat(logged).as("nothing logged at INFO or above (it would reach stderr)")
                .extracting(r -> r.getLoggerName() + ": " + r.getMessage()).isEmpty();
    }
}
