package io.latchkey;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

/** A client written before the fenced store refuses it naming itself; the election lock name is the engine's. */
class FencedStoreDefaultsTest {

    @Test
    void aClientWithoutAStoreSaysWhichClientItIs() {
        LockClient client = new LockClient() {
            @Override public DistributedLock lock(String name) { throw new AssertionError(); }
            @Override public DistributedLock fairLock(String name) { throw new AssertionError(); }
            @Override public DistributedReadWriteLock readWriteLock(String name) { throw new AssertionError(); }
            @Override public DistributedSemaphore semaphore(String name) { throw new AssertionError(); }
            @Override public PermitExpirableSemaphore permitExpirableSemaphore(String name) {
                throw new AssertionError();
            }
            @Override public DistributedCountDownLatch countDownLatch(String name) { throw new AssertionError(); }
            @Override public Set<Capability> capabilities() { return Set.of(Capability.LOCK); }
            @Override public String clientId() { return "c"; }
            @Override public void close() { }
        };
        assertThatThrownBy(() -> client.fencedStore("order:42")).isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(client.getClass().getName()).hasMessageContaining("fencedStore");
        assertThat(FencedStore.electionLockName("billing")).isEqualTo("latchkey.election:billing");
        assertThat(new StaleLeaseException("order:42", 17).getMessage()).contains("order:42").contains("17");
        assertThat(new StaleLeaseException("order:42", 17)).isInstanceOf(LockException.class);
    }
}
