package io.latchkey.zookeeper.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

class EmbeddedZooKeeperTest {

    @Test
    void aFailedStartLeavesNoTemporaryDirectoryAndTheNextStartWorks() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            long before = ourTempDirs();
            assertThatThrownBy(() -> EmbeddedZooKeeper.builder().port(taken.getLocalPort()).start())
                    .isInstanceOf(RuntimeException.class)
                    .hasMessageContaining("could not start an embedded ZooKeeper server");
            assertThat(ourTempDirs()).as("temporary data directories").isEqualTo(before);
        }
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().tickTime(Duration.ofMillis(200)).start();
             Socket client = new Socket(InetAddress.getLoopbackAddress(), zk.port())) {
            assertThat(client.isConnected()).isTrue();
            assertThat(zk.connectString()).endsWith(":" + zk.port());
        }
    }

    @Test
    void badSettingsAreRefusedWithTheReason() {
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().port(70_000))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("port must be 0-65535 but was 70000");
        assertThatThrownBy(() -> EmbeddedZooKeeper.builder().tickTime(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tickTime must be at least 1ms");
    }

    private static long ourTempDirs() throws IOException {
        try (Stream<Path> dirs = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return dirs.filter(p -> p.getFileName().toString().startsWith("latchkey-zookeeper-")).count();
        }
    }
}
