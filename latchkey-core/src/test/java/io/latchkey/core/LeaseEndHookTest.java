package io.latchkey.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.PermitExpirableSemaphore;
import io.latchkey.core.mem.MemLockClient;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's one lease-end hook: at the bound of a fixed lease the client's heap of fixed leases calls the recipe's
 * clean-up ({@link RemoteLockOps#leaseEnded}, {@link RemoteCountOps#leaseEnded}) once, after the hold turned lost and
 * before its listeners, on the client's timer thread; never for a hold or permit released (or updated) first.
 */
class LeaseEndHookTest {

    private final String server = CountingMemClient.newServer();
    private final CountingMemClient client = new CountingMemClient(server, CountingMemClient.shortWatchdog());
    private final PermitClient permits = new PermitClient(server);

    @AfterEach
    void close() {
        client.close();
        permits.close();
    }

    @Test
    void aFixedLockLeaseEndsThroughTheHookAfterTheLossAndBeforeTheListeners() throws Exception {
        LockLease lease = client.lock("hooked").acquire(Duration.ofMillis(150));
        AtomicInteger listened = new AtomicInteger();
        List<String> seen = new CopyOnWriteArrayList<>();
        client.counting().onLeaseEnded = g -> seen.add(g.fencingToken() + " valid=" + lease.isValid() + " listeners="
                + listened.get() + " thread=" + Thread.currentThread().getName());
        lease.onLost(listened::incrementAndGet);
        LockLease released = client.lock("released-first").acquire(Duration.ofMillis(150));
        released.release();

        await().atMost(Duration.ofSeconds(3)).until(() -> listened.get() == 1);
        assertThat(seen).singleElement().asString().startsWith(lease.fencingToken() + " valid=false listeners=0")
                .contains("-watchdog-");
        assertThatThrownBy(lease::release).isInstanceOf(LockLostException.class);
        Thread.sleep(300);
        assertThat(client.counting().leaseEnds).as("once, and never for the lease released first").hasValue(1);
    }

    @Test
    void aFixedPermitEndsThroughTheHookUnlessReleasedAndAnUpdateMovesItsEnd() throws Exception {
        PermitExpirableSemaphore s = permits.permitExpirableSemaphore("hooked-permits");
        s.trySetPermits(4);
        long start = System.nanoTime();
        String fixed = s.acquire(Duration.ofMillis(150));
        String released = s.acquire(Duration.ofMillis(150));
        String moved = s.acquire(Duration.ofSeconds(20));
        String later = s.acquire(Duration.ofSeconds(30));
        s.release(released);
        long update = System.nanoTime();
        assertThat(s.updateLease(moved, Duration.ofMillis(500))).isTrue();

        await().atMost(Duration.ofSeconds(3)).until(() -> permits.ops.ended.containsKey(fixed));
        assertThat(permits.ops.ended.get(fixed) - start).as("not before its lease").isGreaterThanOrEqualTo(150_000_000L);
        await().atMost(Duration.ofSeconds(3)).until(() -> permits.ops.ended.containsKey(moved));
        assertThat(permits.ops.ended.get(moved) - update).as("at the updated end").isGreaterThanOrEqualTo(500_000_000L);
        Thread.sleep(200);
        assertThat(permits.ops.ended.keySet()).containsExactlyInAnyOrder(fixed, moved);
        assertThat(s.release(later)).isTrue();
    }

    /** A mem client whose permit-expirable semaphores record the lease-end calls. */
    static final class PermitClient extends MemLockClient {
        private Recipes recipes;
        RecordingPermits ops;

        PermitClient(String server) {
            super(server, ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(1)).build(), TimeSource.SYSTEM);
        }

        @Override
        protected synchronized Recipes recipes() {
            if (recipes == null) {
                Recipes mem = super.recipes();
                ops = new RecordingPermits(mem.permitExpirableSemaphore());
                recipes = mem.toBuilder().permitExpirableSemaphore(ops).build();
            }
            return recipes;
        }
    }

    /** Delegates the permit methods and records each {@link #leaseEnded} with the time it came. */
    static final class RecordingPermits implements RemoteCountOps {
        final RemoteCountOps delegate;
        final Map<String, Long> ended = new ConcurrentHashMap<>();

        RecordingPermits(RemoteCountOps delegate) {
            this.delegate = delegate;
        }

        @Override
        public void leaseEnded(String name, String permitId) {
            ended.merge(permitId, System.nanoTime(), (a, b) -> -1L); // -1: called twice
            delegate.leaseEnded(name, permitId);
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String name, Runnable changed) {
            return delegate.subscribe(name, changed);
        }

        @Override
        public CompletableFuture<Integer> availablePermits(String name) {
            return delegate.availablePermits(name);
        }

        @Override
        public CompletableFuture<Boolean> trySetPermits(String name, int permits) {
            return delegate.trySetPermits(name, permits);
        }

        @Override
        public CompletableFuture<Attempt> tryLease(String name, String permitId, long leaseMillis, boolean watchdog) {
            return delegate.tryLease(name, permitId, leaseMillis, watchdog);
        }

        @Override
        public CompletableFuture<Boolean> release(String name, String permitId) {
            return delegate.release(name, permitId);
        }

        @Override
        public CompletableFuture<Boolean> updateLease(String name, String permitId, long leaseMillis) {
            return delegate.updateLease(name, permitId, leaseMillis);
        }

        @Override
        public boolean renewsPermits() {
            return delegate.renewsPermits();
        }

        @Override
        public CompletableFuture<Set<Grant>> renew(Collection<Grant> grants) {
            return delegate.renew(grants);
        }
    }
}
