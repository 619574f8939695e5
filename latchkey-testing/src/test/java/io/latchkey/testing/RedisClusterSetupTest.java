package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisClusterSetupTest {

    @Test
    @SuppressWarnings("unchecked")
    void threeMastersServeEverySlotAsDescribed() {
        List<Path> dirs;
        try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
            List<Integer> ports = cluster.ports();
            assertThat(ports).hasSize(3).doesNotHaveDuplicates();
            assertThat(cluster.uri()).isEqualTo("redis-cluster://127.0.0.1:" + ports.get(0) + ",127.0.0.1:"
                    + ports.get(1) + ",127.0.0.1:" + ports.get(2));
            for (int i = 0; i < 3; i++) {
                assertThat(cluster.execute(i, "CLUSTER", "INFO").toString()).contains("cluster_state:ok")
                        .contains("cluster_known_nodes:3");
            }
            // Every node's view of the slot map agrees with masterOfSlot.
            for (Object range : (List<Object>) cluster.execute(1, "CLUSTER", "SLOTS")) {
                List<Object> r = (List<Object>) range;
                int from = ((Long) r.get(0)).intValue();
                int to = ((Long) r.get(1)).intValue();
                int port = ((Long) ((List<Object>) r.get(2)).get(1)).intValue();
                assertThat(ports.get(cluster.masterOfSlot(from))).isEqualTo(port);
                assertThat(ports.get(cluster.masterOfSlot(to))).isEqualTo(port);
            }
            int slot = ((Long) cluster.execute(0, "CLUSTER", "KEYSLOT", "some-key")).intValue();
            int owner = cluster.masterOfSlot(slot);
            assertThat(cluster.execute(owner, "SET", "some-key", "v")).isEqualTo("OK");
            assertThatThrownBy(() -> cluster.execute((owner + 1) % 3, "GET", "some-key"))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("MOVED " + slot);
            cluster.flushAll();
            assertThat(cluster.execute(owner, "EXISTS", "some-key")).isEqualTo(0L);
            assertThatThrownBy(() -> cluster.masterOfSlot(16384)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("16384");
            dirs = cluster.directories();
        }
        assertThat(dirs).hasSize(3).allSatisfy(dir -> assertThat(Files.exists(dir)).isFalse());
    }

    @Test
    void missingBinaryNamesTheInstallCommand() {
        assertThatThrownBy(() -> RedisClusterSetup.start("no-such-redis-server"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(RedisServer.INSTALL_HINT);
    }
}
