package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.testing.EtcdServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the TCK's latch tests do not pin down on etcd: concurrent count-downs are never lost, the key layout. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdCountDownLatchTest {

    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
    }

    private EtcdLockClient open() {
        EtcdLockClient c = EtcdLockClient.connect(etcd.uri(), ClientOptions.builder()
                .operationTimeout(Duration.ofSeconds(5)).build());
        closeAfter.add(c);
        return c;
    }

    private long keysUnder(String prefix) throws Exception {
        try (Client admin = Client.builder().endpoints(etcd.endpoint()).build()) {
            return admin.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(5, TimeUnit.SECONDS).getCount();
        }
    }

    @Test
    void concurrentCountDownsFromTwoClientsAreNeverLostAndTheOpenLatchLeavesNoKey() throws Exception {
        String name = "test-" + UUID.randomUUID();
        List<DistributedCountDownLatch> latches = List.of(open().countDownLatch(name), open().countDownLatch(name));
        assertThat(latches.get(0).trySetCount(20)).isTrue();
        assertThat(keysUnder("latchkey/latches/" + name)).isEqualTo(1);
        List<CompletableFuture<Void>> downs = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            DistributedCountDownLatch latch = latches.get(i % 2);
            downs.add(CompletableFuture.runAsync(latch::countDown));
        }
        CompletableFuture.allOf(downs.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
        assertThat(latches.get(1).getCount()).isZero();
        assertThat(latches.get(0).await(Duration.ZERO)).isTrue();
        assertThat(keysUnder("latchkey/latches/" + name)).as("an open latch's key").isZero();
    }

    @Test
    void badArgumentsAreRefusedWithTheReason() throws InterruptedException {
        DistributedCountDownLatch latch = open().countDownLatch("test-" + UUID.randomUUID());
        assertThatThrownBy(() -> latch.trySetCount(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("count");
        // A negative wait is one look, as in java.util.concurrent: the latch is open.
        assertThat(latch.await(Duration.ofMillis(-1))).isTrue();
    }
}
