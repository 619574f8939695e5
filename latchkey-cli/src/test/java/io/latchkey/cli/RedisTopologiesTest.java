package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.testing.RedisClusterExtension;
import io.latchkey.testing.RedisSentinelExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code redis-sentinel://} and {@code redis-cluster://} in the admin commands, against real servers, in-process. */
class RedisTopologiesTest {

    @RegisterExtension
    static final RedisSentinelExtension SENTINEL = new RedisSentinelExtension();

    @RegisterExtension
    static final RedisClusterExtension CLUSTER = new RedisClusterExtension();

    @Test
    void sentinelAndClusterUrisWorkInInspectUnlockAndBench() throws Exception {
        for (String uri : new String[] {SENTINEL.uri(), CLUSTER.uri()}) {
            try (LockClient holder = LockClient.connect(uri)) {
                LockLease lease = holder.lock("topology:1").acquire();
                InProcess.Result listed = InProcess.run("inspect", uri, "topology:*");
                assertThat(listed.exitCode()).as(listed.toString()).isZero();
                assertThat(listed.stdout()).contains("topology:1").contains(holder.clientId())
                        .contains(String.valueOf(lease.fencingToken()));

                InProcess.Result released = InProcess.run("unlock", uri, "topology:1", "--force", "--yes");
                assertThat(released.exitCode()).as(released.toString()).isZero();
                assertThat(released.stdout()).contains("released 'topology:1'");

                InProcess.Result bench = InProcess.run("bench", uri, "--threads", "2", "--names", "distinct",
                        "--duration", "200ms", "--warmup", "0ms");
                assertThat(bench.exitCode()).as(bench.toString()).isZero();
                assertThat(bench.stdout().lines().filter(l -> l.matches("\\s*2\\s+distinct\\s+.*"))).hasSize(1);
            }
        }
    }
}
