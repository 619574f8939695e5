package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The replica cluster of the fault suite: a killed master's replica takes over and the old master rejoins. */
class RedisClusterFailoverSetupTest {

    @Test
    void aKilledMastersReplicaTakesOverAndTheOldMasterRejoinsAsReplica() {
        try (RedisClusterSetup cluster = RedisClusterSetup.startWithReplicas()) {
            int master = cluster.masterOfSlot(15495); // the slot of {a}
            assertThat(cluster.execute(master, "SET", "{a}k", "v")).isEqualTo("OK");
            int busiest = cluster.busiestMaster();
            assertThat(busiest).as("the master of {a} holds the only key").isEqualTo(master);

            cluster.failOver(busiest);

            assertThat(cluster.busiestMaster()).as("another node serves the key now").isNotEqualTo(busiest);
            assertThat(String.valueOf(cluster.execute(busiest, "INFO", "replication"))).contains("role:slave");
        }
    }

    @Test
    void aClusterWithoutReplicasRefusesToFailOver() {
        try (RedisClusterSetup cluster = RedisClusterSetup.start()) {
            assertThatThrownBy(() -> cluster.failOver(0)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("startWithReplicas");
        }
    }
}
