package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockUnavailableException;
import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * A semaphore release whose delete did not reach ZooKeeper (the connection was down, the session survived) must not
 * keep the permit taken: the permit node is ephemeral, but the client keeps its session alive, so before the fix the
 * permit stayed used for the client's lifetime. The caller is told; the delete goes on in the background until the
 * server answers.
 */
class SemaphoreReleaseDuringOutageTest {

    private static LockClient viaProxy(TcpProxy proxy) {
        // a long session (it survives the cut), a short operation timeout (the release gives up quickly)
        return LockClient.connect("zookeeper://127.0.0.1:" + proxy.port(), ClientOptions.builder()
                .watchdogTimeout(Duration.ofSeconds(30)).operationTimeout(Duration.ofSeconds(1)).build());
    }

    @Test
    void aPermitWhoseReleaseFailedDuringAnOutageComesBackOnceTheServerAnswers() throws Exception {
        String name = "sem-outage-" + UUID.randomUUID();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             LockClient holder = viaProxy(proxy);
             LockClient other = LockClient.connect(SharedZooKeeper.server().uri())) {
            DistributedSemaphore held = holder.semaphore(name);
            assertThat(held.trySetPermits(1)).isTrue();
            assertThat(held.tryAcquire()).isTrue();

            proxy.cut();
            assertThat(catchThrowable(held::release)).as("the caller is told the release did not reach the server")
                    .isInstanceOf(LockUnavailableException.class);
            proxy.restore();

            DistributedSemaphore taker = other.semaphore(name);
            assertThat(taker.tryAcquire(1, Duration.ofSeconds(15))).as("the permit came back").isTrue();
            taker.release();
        }
    }

    @Test
    void aLeasedPermitWhoseReleaseFailedDuringAnOutageComesBackOnceTheServerAnswers() throws Exception {
        String name = "permit-outage-" + UUID.randomUUID();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             LockClient holder = viaProxy(proxy);
             LockClient other = LockClient.connect(SharedZooKeeper.server().uri())) {
            PermitExpirableSemaphore held = holder.permitExpirableSemaphore(name);
            assertThat(held.trySetPermits(1)).isTrue();
            String id = held.acquire(Duration.ofMinutes(10));

            proxy.cut();
            assertThat(catchThrowable(() -> held.release(id))).isInstanceOf(LockUnavailableException.class);
            proxy.restore();

            Optional<String> next = other.permitExpirableSemaphore(name).tryAcquire(Duration.ofSeconds(15),
                    Duration.ofSeconds(30));
            assertThat(next).as("the permit came back long before its 10 min lease").isPresent();
            other.permitExpirableSemaphore(name).release(next.get());
        }
    }
}
