package io.latchkey.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.StaleLeaseException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

/** The reactive fenced store: cold Monos over the store's futures, stale leases signalled, on the mem backend. */
class ReactiveFencedStoreTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void writesAreFencedAndSentOnSubscription() throws Exception {
        try (LockClient client = LockClient.connect("mem://reactive-store-" + UUID.randomUUID())) {
            ReactiveLockClient locks = ReactiveLockClient.of(client);
            ReactiveFencedStore store = locks.fencedStore("order:42");
            StepVerifier.create(store.get("stock")).verifyComplete();
            LockLease lease = client.lock("order:42").acquire();
            var put = store.put(lease, "stock", b("10"));
            assertThat(client.fencedStore("order:42").get("stock")).as("nothing sent before subscription").isEmpty();
            StepVerifier.create(put).verifyComplete();
            StepVerifier.create(store.get("stock").map(v -> new String(v, StandardCharsets.UTF_8)))
                    .expectNext("10").verifyComplete();
            StepVerifier.create(store.compareAndSet(lease, "stock", b("10"), b("9"))).expectNext(true)
                    .verifyComplete();
            StepVerifier.create(store.compareAndSet(lease, "stock", null, b("1"))).expectNext(false)
                    .verifyComplete();
            StepVerifier.create(store.delete(lease, "stock")).expectNext(true).verifyComplete();
            lease.release();
            StepVerifier.create(store.put(lease, "stock", b("8"))).verifyError(StaleLeaseException.class);
            StepVerifier.create(store.put(lease, "bad\nkey", b("8"))).verifyError(IllegalArgumentException.class);
            StepVerifier.create(store.get("stock")).verifyComplete();
        }
    }
}
