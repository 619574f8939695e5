package io.latchkey.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A holder whose connection is cut for longer than its session timeout: the server expires the session and
 * deletes its nodes, the next waiter acquires, the holder gets the lost signal and its unlock throws. While the
 * connection is merely suspended the lease reports not valid, and valid again once it is back in time.
 */
class SessionLossTest {

    private static ClientOptions options(long sessionMillis) {
        // the URI client's session timeout is the watchdog timeout; a long watchdog period keeps renewals out of it
        return ClientOptions.builder().watchdogTimeout(Duration.ofMillis(sessionMillis))
                .operationTimeout(Duration.ofSeconds(5)).build();
    }

    @Test
    void expiredSessionLosesTheLockAndTheNextWaiterAcquires() throws Exception {
        String name = "expiry-" + UUID.randomUUID();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             LockClient holder = LockClient.connect("zookeeper://127.0.0.1:" + proxy.port(), options(1500));
             LockClient waiter = LockClient.connect(SharedZooKeeper.server().uri(), options(10_000))) {
            DistributedLock held = holder.lock(name);
            LockLease lease = held.acquire();
            long token = lease.fencingToken();
            CountDownLatch lost = new CountDownLatch(1);
            lease.onLost(lost::countDown);
            CompletableFuture<LockLease> next = waiter.lock(name).acquireAsync();
            Thread.sleep(200);
            assertThat(next).isNotDone();

            proxy.cut();
            LockLease nextLease = next.get(15, TimeUnit.SECONDS);
            assertThat(nextLease.fencingToken()).isGreaterThan(token);
            assertThat(lost.await(15, TimeUnit.SECONDS)).as("onLost ran").isTrue();
            assertThat(lease.isValid()).isFalse();
            proxy.restore();
            assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
            nextLease.release();
        }
    }

    @Test
    void threadOwnedUnlockThrowsAfterSessionExpiry() throws Exception {
        String name = "expiry-thread-" + UUID.randomUUID();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             LockClient holder = LockClient.connect("zookeeper://127.0.0.1:" + proxy.port(), options(1500));
             LockClient other = LockClient.connect(SharedZooKeeper.server().uri(), options(10_000))) {
            DistributedLock held = holder.lock(name);
            held.lock(Duration.ofMinutes(5)); // a fixed lease: no watchdog check, only the push signal tells
            proxy.cut();
            DistributedLock taker = other.lock(name);
            assertThat(taker.tryLock(15, TimeUnit.SECONDS)).isTrue();
            proxy.restore();
            // the holder learns of the expiry once it reconnects (new session): unlock then says lost
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            Throwable thrown = null;
            while (System.nanoTime() < deadline) {
                try {
                    held.unlock();
                    thrown = null;
                    break;
                } catch (LockLostException e) {
                    thrown = e;
                    break;
                } catch (RuntimeException e) {
                    thrown = e;
                    Thread.sleep(200);
                }
            }
            assertThat(thrown).isInstanceOf(LockLostException.class);
            taker.unlock();
        }
    }

    @Test
    void suspendedLeaseIsInDoubtThenValidAgain() throws Exception {
        String name = "suspend-" + UUID.randomUUID();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             LockClient holder = LockClient.connect("zookeeper://127.0.0.1:" + proxy.port(), options(8000))) {
            LockLease lease = holder.lock(name).acquire();
            assertThat(lease.isValid()).isTrue();
            proxy.cut();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (lease.isValid() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(lease.isValid()).as("in doubt while suspended").isFalse();
            proxy.restore();
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!lease.isValid() && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(lease.isValid()).as("valid again after reconnecting within the session").isTrue();
            lease.release();
        }
    }

    @Test
    void aDeleteThatFailedIsRetriedSoTheNodeDoesNotBlockOthers() throws Exception {
        String name = "retry-delete-" + UUID.randomUUID();
        ClientOptions shortOps = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(20))
                .operationTimeout(Duration.ofMillis(500)).build();
        try (TcpProxy proxy = new TcpProxy(SharedZooKeeper.server().port());
             LockClient holder = LockClient.connect("zookeeper://127.0.0.1:" + proxy.port(), shortOps);
             LockClient other = LockClient.connect(SharedZooKeeper.server().uri(), options(10_000))) {
            DistributedLock held = holder.lock(name);
            held.lock();
            proxy.cut();
            assertThatThrownBy(held::unlock).isInstanceOf(io.latchkey.LockUnavailableException.class);
            assertThat(other.lock(name).tryLock()).as("still held: the delete did not reach the server").isFalse();
            proxy.restore();
            // the session (20 s) is still alive: only the background retry of the delete can free the lock this soon
            long t0 = System.nanoTime();
            assertThat(other.lock(name).tryLock(8, TimeUnit.SECONDS)).isTrue();
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(8000);
            other.lock(name).unlock();
        }
    }
}
