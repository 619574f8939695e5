package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Server-down paths, through the mem server's availability hook. */
class ServerOutageTest {

    private final MemLockClient client = MemLockClient.create(CountingMemClient.newServer(), ClientOptions.builder()
            .watchdogTimeout(Duration.ofMillis(600)).operationTimeout(Duration.ofMillis(500)).build());

    @AfterEach
    void close() {
        client.setServerAvailable(true);
        client.close();
    }

    @Test
    void operationsFailWithUnavailableNamingTheLock() {
        client.setServerAvailable(false);
        DistributedLock lock = client.lock("down");
        assertThatThrownBy(lock::lock).isInstanceOf(LockUnavailableException.class).hasMessageContaining("down");
        assertThatThrownBy(lock::tryLock).isInstanceOf(LockUnavailableException.class);
        assertThatThrownBy(lock::isLocked).isInstanceOf(LockUnavailableException.class);
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalMonitorStateException.class);
        client.setServerAvailable(true);
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    @Test
    void leaseIsLostWhenRenewalsFailPastItsLease() throws Exception {
        LockLease lease = client.lock("renew-down").acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        client.setServerAvailable(false);
        await().atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
        assertThat(lease.isValid()).isFalse();
        client.setServerAvailable(true);
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
    }

    @Test
    void waitersFailWhenTheServerGoesDown() throws Exception {
        try (MemLockClient other = MemLockClient.create(client.serverName())) {
            DistributedLock held = other.lock("waiting");
            held.lock();
            var waiting = client.lock("waiting").acquireAsync();
            client.setServerAvailable(false);
            assertThat(waiting).failsWithin(Duration.ofSeconds(3)).withThrowableOfType(Exception.class)
                    .withCauseInstanceOf(LockUnavailableException.class);
            client.setServerAvailable(true);
            held.unlock();
            assertThat(held.isLocked()).isFalse();
        }
    }
}
