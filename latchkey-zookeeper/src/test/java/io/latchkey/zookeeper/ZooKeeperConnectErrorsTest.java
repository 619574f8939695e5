package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A connect that cannot succeed says why in its top message, without waiting out the timeout. */
class ZooKeeperConnectErrorsTest {

    @Test
    void nothingListeningIsNamedAsConnectionRefusedWellBeforeTheTimeout() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort(); // free again once closed: nothing listens there
        }
        String uri = "zookeeper://127.0.0.1:" + port;
        ClientOptions options = ClientOptions.builder().operationTimeout(Duration.ofSeconds(5)).build();
        long start = System.nanoTime();
        assertThatThrownBy(() -> LockClient.connect(uri, options))
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("connection refused")
                .hasMessageContaining("127.0.0.1:" + port);
        assertThat((System.nanoTime() - start) / 1_000_000).as("not the whole 5 s timeout").isLessThan(2_000);
    }
}
