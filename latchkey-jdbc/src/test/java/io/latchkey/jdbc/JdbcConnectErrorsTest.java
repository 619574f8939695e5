package io.latchkey.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.RedisServer;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A {@code jdbc:} URI that cannot connect fails within the operation timeout, naming why. */
class JdbcConnectErrorsTest {

    private static final ClientOptions OPTIONS = ClientOptions.builder().operationTimeout(Duration.ofSeconds(2))
            .build();

    @Test
    @Timeout(value = 20, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aPostgresqlUriAtARedisServerFailsWithinTheTimeout() {
        try (RedisServer redis = RedisServer.standalone().start()) {
            String uri = "jdbc:postgresql://127.0.0.1:" + redis.port() + "/x?user=u&password=secret-pw";
            long start = System.nanoTime();
            assertThatThrownBy(() -> LockClient.connect(uri, OPTIONS))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("127.0.0.1:" + redis.port() + " accepted the connection, but no PostgreSQL "
                            + "server answered there within 2000 ms (is it a PostgreSQL server?)")
                    .hasMessageNotContaining("secret-pw");
            // PgJDBC's login bound is whole seconds: 2 s, plus the pool's own start
            assertThat((System.nanoTime() - start) / 1_000_000).as("not waiting for ever").isLessThan(4_000);
        }
    }

    @Test
    void nothingListeningIsNamedAsConnectionRefused() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        assertThatThrownBy(() -> LockClient.connect("jdbc:postgresql://127.0.0.1:" + port + "/x?user=u", OPTIONS))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("connection refused");
    }
}
