package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code latchkey inspect}, run as a separate process against locks this test holds on an embedded ZooKeeper. */
class InspectIT {

    @Test
    void listsTheLocksAnotherProcessHolds() throws Exception {
        ClientOptions options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(5)).build();
        try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start();
             LockClient holder = LockClient.connect(zk.uri(), options.toBuilder().clientName("billing-7").build());
             LockClient waiter = LockClient.connect(zk.uri(), options)) {
            LockLease one = holder.lock("orders-1").acquire();
            LockLease two = holder.lock("orders-2").acquire();
            LockLease pay = holder.lock("payments").acquire();
            CompletableFuture<LockLease> queued = waiter.lock("orders-2").acquireAsync();

            CliProcess.Result r = CliProcess.run("inspect", zk.uri(), "orders-*");
            assertThat(r.exitCode()).as(r.toString()).isZero();
            assertThat(r.stdout()).contains("name", "owner", "waiters").contains("2 held locks on")
                    .doesNotContain("payments");
            List<String> rows = r.stdout().lines().filter(l -> l.startsWith("orders-")).toList();
            assertThat(rows).hasSize(2);
            assertThat(rows.get(0)).startsWith("orders-1").endsWith(" 0");
            assertThat(rows.get(1)).as("one client queues for it").startsWith("orders-2").endsWith(" 1");
            assertThat(rows.get(0)).contains(holder.clientId()).as("the holding client's name").contains(" billing-7 ");
            assertThat(rows.get(0)).as("the zxid token and the session timeout as the lease")
                    .contains(" " + one.fencingToken() + " ").contains("lease: session timeout")
                    .containsPattern(" \\d+\\.\\d\\d s ");

            CliProcess.Result all = CliProcess.run("inspect", zk.uri());
            assertThat(all.stdout()).as(all.toString()).contains("payments").contains("3 held locks on");

            two.release();
            LockLease next = queued.get(10, TimeUnit.SECONDS);
            one.release();
            pay.release();
            next.release();
            CliProcess.Result none = CliProcess.run("inspect", zk.uri(), "orders-*");
            assertThat(none.exitCode()).as(none.toString()).isZero();
            assertThat(none.stdout()).contains("no held locks match 'orders-*'");
        }
    }
}
