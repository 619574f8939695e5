package io.latchkey.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisSentinelSetupTest {

    @Test
    void startsAReplicatedMasterWatchedByThreeSentinelsAndCutsTheReplicaOffOnDemand() {
        try (RedisSentinelSetup setup = new RedisSentinelSetup().start()) {
            assertThat(setup.uri()).matches("redis-sentinel://127\\.0\\.0\\.1:\\d+,127\\.0\\.0\\.1:\\d+,"
                    + "127\\.0\\.0\\.1:\\d+/latchkey");
            assertThat(setup.sentinelPorts()).hasSize(3).doesNotHaveDuplicates();
            assertThat(setup.masterUri()).isEqualTo("redis://127.0.0.1:" + setup.masterPort());
            assertThat(setup.master("SET", "k", "v")).isEqualTo("OK");
            // WAIT: the replica has everything the master wrote on this connection.
            assertThat(setup.master("WAIT", "1", "5000")).isEqualTo(1L);
            assertThat(setup.replica("GET", "k")).isEqualTo("v");
            assertThat((List<?>) setup.replica("ROLE")).first().isEqualTo("slave");

            setup.freezeReplica();
            assertThat(setup.master("WAIT", "1", "50")).isEqualTo(0L);
            setup.thawReplica();
            assertThat(setup.master("WAIT", "1", "5000")).isEqualTo(1L);
            assertThat(setup.toString()).contains("replica 127.0.0.1:" + setup.replicaPort());
        }
    }

    @Test
    void refusesATooShortDownAfter() {
        assertThatThrownBy(() -> new RedisSentinelSetup(Duration.ofMillis(50)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("downAfter must be at least 100ms but was PT0.05S");
    }
}
