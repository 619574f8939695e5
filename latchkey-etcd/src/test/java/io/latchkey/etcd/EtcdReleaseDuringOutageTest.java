package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.ClientOptions;
import io.latchkey.LockLease;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.EtcdServerExtension;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A release that cannot reach etcd (the server is down) must not leave the holder's key behind
 * on the client's shared lease, which the same client keeps alive for its other keys. Before the fix the dead hold's
 * key stayed the lowest create revision after etcd came back, and every waiter timed out for as long as the client
 * lived.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class EtcdReleaseDuringOutageTest {

    private static final Duration WATCHDOG = Duration.ofSeconds(2);
    /** TTL of the shared lease plus room for the restart, a reconnect and the retry's backoff on a loaded machine. */
    private static final Duration WITHIN = WATCHDOG.plus(Duration.ofSeconds(8));

    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();
    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        etcd.server().start();
        for (AutoCloseable c : closeAfter) {
            c.close();
        }
    }

    private EtcdLockClient open() {
        EtcdLockClient c = EtcdLockClient.connect(etcd.uri(), ClientOptions.builder().watchdogTimeout(WATCHDOG)
                .operationTimeout(Duration.ofSeconds(2)).build());
        closeAfter.add(c);
        return c;
    }

    @Test
    void aReleaseThatFailedWhileEtcdWasDownIsRetriedSoTheLockIsFreeWithinItsTtl() throws Exception {
        String name = "outage-" + UUID.randomUUID();
        String other = "outage-other-" + UUID.randomUUID();
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        LockLease held = a.lock(name).acquire();
        LockLease blocker = b.lock(other).acquire();

        etcd.server().kill();
        Throwable thrown = catchThrowable(held::release);
        assertThat(thrown).as("the caller is told the release did not reach etcd")
                .isInstanceOf(LockUnavailableException.class);
        etcd.server().start();

        // A waits on another name: its waiting key keeps A's shared lease alive, the lease the dead hold's key is on.
        CompletableFuture<Optional<LockLease>> aWaits = a.lock(other).tryAcquireAsync(Duration.ofSeconds(60), null);
        await().atMost(Duration.ofSeconds(20)).until(() -> keyCount(a.lockPrefix(other)) >= 2 || aWaits.isDone());

        long start = System.nanoTime();
        Optional<LockLease> next = b.lock(name).tryAcquire(WITHIN);
        assertThat(next).as("another client holds within the TTL after the server came back").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(WITHIN);
        next.get().release();
        assertThat(keyCount(a.lockPrefix(name))).as("no key of the name left").isZero();

        if (blocker.isValid()) {
            blocker.release();
        }
        aWaits.get(30, TimeUnit.SECONDS).ifPresent(LockLease::release);
    }

    @Test
    void aFixedLeaseHoldsFailedReleaseIsRetriedToo() throws Exception {
        String name = "outage-fixed-" + UUID.randomUUID();
        String other = "outage-other-" + UUID.randomUUID();
        EtcdLockClient a = open();
        EtcdLockClient b = open();
        LockLease held = a.lock(name).acquire(Duration.ofSeconds(30));
        LockLease blocker = b.lock(other).acquire();

        etcd.server().kill();
        assertThat(catchThrowable(held::release)).isInstanceOf(LockUnavailableException.class);
        etcd.server().start();
        CompletableFuture<Optional<LockLease>> aWaits = a.lock(other).tryAcquireAsync(Duration.ofSeconds(60), null);

        // the key's own lease has 30 s: only the retried delete frees the lock this soon
        Optional<LockLease> next = b.lock(name).tryAcquire(WITHIN);
        assertThat(next).as("free long before the hold's own 30 s lease ends").isPresent();
        next.get().release();
        if (blocker.isValid()) {
            blocker.release();
        }
        aWaits.get(30, TimeUnit.SECONDS).ifPresent(LockLease::release);
    }

    /**
     * The fault suite's etcd-cluster failover: a waiter gave up while etcd elected a leader, and its key's delete
     * failed too (a member answered with an error; a single server that is merely down makes jetcd wait for it
     * instead). The key stayed on the client's shared lease, kept alive by the client's next waiting key, and no one
     * got the lock again for as long as the client lived. Here B's transactions fail on demand, through a gRPC
     * interceptor of its jetcd client, while its wait times out.
     */
    @Test
    void aWaiterWhoseKeyCouldNotBeDeletedWhenItGaveUpLeavesNoKeyBehind() throws Exception {
        String name = "outage-waiter-" + UUID.randomUUID();
        String other = "outage-other-" + UUID.randomUUID();
        AtomicBoolean failTxns = new AtomicBoolean();
        Client jetcd = Client.builder().endpoints(etcd.endpoint()).interceptor(new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options,
                                                         Channel next) {
                if (failTxns.get() && method.getFullMethodName().endsWith("KV/Txn")) {
                    return new FailingCall<>();
                }
                return next.newCall(method, options);
            }
        }).build();
        closeAfter.add(jetcd);
        EtcdLockClient a = open();
        EtcdLockClient b = EtcdLockClient.create(jetcd, ClientOptions.builder().watchdogTimeout(WATCHDOG)
                .operationTimeout(Duration.ofSeconds(2)).build());
        closeAfter.add(0, b);
        EtcdLockClient c = open();
        LockLease held = a.lock(name).acquire();
        LockLease blocker = c.lock(other).acquire();
        CompletableFuture<Optional<LockLease>> bWaits = b.lock(name).tryAcquireAsync(Duration.ofSeconds(3), null);
        await().atMost(Duration.ofSeconds(20)).until(() -> keyCount(a.lockPrefix(name)) == 2);

        failTxns.set(true);
        // B's wait ends while its transactions fail: it times out, or its re-check (due at A's lease TTL, 2.5 s)
        // fails first; either way B gave up and its key stays
        assertThat(bWaits.handle((r, e) -> {
            if (e != null) {
                assertThat(e instanceof java.util.concurrent.CompletionException ? e.getCause() : e)
                        .isInstanceOf(io.latchkey.LockUnavailableException.class);
                return Optional.<LockLease>empty();
            }
            return r;
        }).get(30, TimeUnit.SECONDS)).as("B's wait ended without the lock").isEmpty();
        assertThat(keyCount(a.lockPrefix(name))).as("B's key could not be deleted yet").isEqualTo(2);
        failTxns.set(false);

        // B waits on another name: its waiting key keeps B's shared lease alive, the lease its old key is on.
        CompletableFuture<Optional<LockLease>> bWaitsElsewhere = b.lock(other).tryAcquireAsync(Duration.ofSeconds(60),
                null);
        held.release();
        Optional<LockLease> next = c.lock(name).tryAcquire(WITHIN);
        assertThat(next).as("another client holds once B's transactions go through again").isPresent();
        next.get().release();
        assertThat(keyCount(a.lockPrefix(name))).as("no key of the name left").isZero();

        blocker.release();
        bWaitsElsewhere.get(30, TimeUnit.SECONDS).ifPresent(LockLease::release);
    }

    /** A call that fails at once as a member would that cannot serve it (jetcd retries it, and it fails again). */
    private static final class FailingCall<Q, R> extends ClientCall<Q, R> {
        @Override
        public void start(Listener<R> listener, Metadata headers) {
            listener.onClose(Status.UNAVAILABLE.withDescription("test: transactions fail"), new Metadata());
        }

        @Override
        public void request(int numMessages) {
        }

        @Override
        public void cancel(String message, Throwable cause) {
        }

        @Override
        public void halfClose() {
        }

        @Override
        public void sendMessage(Q message) {
        }
    }

    private static long keyCount(String prefix) throws Exception {
        try (Client admin = Client.builder().endpoints(etcd.endpoint()).build()) {
            return admin.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(10, TimeUnit.SECONDS).getCount();
        }
    }
}
