package io.latchkey.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall;
import io.grpc.ForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockUnavailableException;
import io.latchkey.testing.EtcdServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A semaphore take whose transaction etcd applied but whose answer reached the client only after its operation timeout
 * (held back by a gRPC interceptor of the client's jetcd connection; the server is real) gives its permits back
 * exactly once; a take whose answer arrives leaves no record once its permits are released, at the same round trips
 * per cycle as before records existed.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class EtcdSemaphoreLostAnswerTest {

    private static final Duration OP_TIMEOUT = Duration.ofMillis(2000);
    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();

    /** Holds back the answer of the next transaction by three operation timeouts. */
    private final AtomicBoolean delayNextTxn = new AtomicBoolean();
    /** Sends the next transaction twice, the copy first (as a transport that retries a request would). */
    private final AtomicBoolean duplicateNextTxn = new AtomicBoolean();
    private final AtomicReference<Status> copied = new AtomicReference<>();
    private final Map<String, AtomicLong> calls = new ConcurrentHashMap<>();
    private final ScheduledExecutorService delays = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "test-delayed-answers");
        t.setDaemon(true);
        return t;
    });
    private Client jetcd;
    private EtcdLockClient client;

    @BeforeEach
    void open() {
        jetcd = Client.builder().endpoints(etcd.endpoint()).interceptor(new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options,
                                                         Channel next) {
                String m = method.getFullMethodName();
                calls.computeIfAbsent(m.substring(m.lastIndexOf('.') + 1), k -> new AtomicLong()).incrementAndGet();
                ClientCall<Q, R> call = next.newCall(method, options);
                if (m.endsWith("KV/Txn") && delayNextTxn.compareAndSet(true, false)) {
                    return new Delayed<>(call, 3 * OP_TIMEOUT.toMillis());
                }
                if (m.endsWith("KV/Txn") && duplicateNextTxn.compareAndSet(true, false)) {
                    return new Duplicated<>(call, next.newCall(method, options), copied);
                }
                return call;
            }
        }).build();
        client = EtcdLockClient.create(jetcd, ClientOptions.builder().operationTimeout(OP_TIMEOUT)
                .watchdogTimeout(Duration.ofSeconds(10)).build());
    }

    @AfterEach
    void close() {
        client.close();
        jetcd.close();
        delays.shutdownNow();
    }

    /** A call whose answer (headers, messages, close) reaches the caller {@code delayMillis} late, in order. */
    private final class Delayed<Q, R> extends ForwardingClientCall.SimpleForwardingClientCall<Q, R> {
        private final long delayMillis;

        Delayed(ClientCall<Q, R> call, long delayMillis) {
            super(call);
            this.delayMillis = delayMillis;
        }

        @Override
        public void start(Listener<R> listener, Metadata headers) {
            super.start(new ForwardingClientCallListener.SimpleForwardingClientCallListener<R>(listener) {
                @Override
                public void onHeaders(Metadata h) {
                    later(() -> super.onHeaders(h));
                }

                @Override
                public void onMessage(R message) {
                    later(() -> super.onMessage(message));
                }

                @Override
                public void onClose(Status status, Metadata trailers) {
                    later(() -> super.onClose(status, trailers));
                }

                @Override
                public void onReady() {
                    super.onReady();
                }
            }, headers);
        }

        private void later(Runnable r) {
            delays.schedule(r, delayMillis, TimeUnit.MILLISECONDS);
        }
    }

    /** A call whose request is first sent, and answered, on a copy of the call. */
    private static final class Duplicated<Q, R> extends ForwardingClientCall.SimpleForwardingClientCall<Q, R> {
        private final ClientCall<Q, R> copy;
        private final CompletableFuture<Status> copyDone = new CompletableFuture<>();
        private final AtomicReference<Status> outcome;

        Duplicated(ClientCall<Q, R> call, ClientCall<Q, R> copy, AtomicReference<Status> outcome) {
            super(call);
            this.copy = copy;
            this.outcome = outcome;
        }

        @Override
        public void start(Listener<R> listener, Metadata headers) {
            copy.start(new Listener<>() {
                @Override
                public void onClose(Status status, Metadata trailers) {
                    outcome.set(status);
                    copyDone.complete(status);
                }
            }, headers);
            copy.request(1);
            super.start(listener, headers);
        }

        @Override
        public void sendMessage(Q message) {
            copy.sendMessage(message);
            copy.halfClose();
            try {
                copyDone.get(10, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the copy of the transaction did not complete", e);
            }
            super.sendMessage(message);
        }
    }

    private static long keyCount(String prefix) throws Exception {
        try (Client admin = Client.builder().endpoints(etcd.endpoint()).build()) {
            return admin.getKVClient().get(ByteSequence.from(prefix, StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(10, TimeUnit.SECONDS)
                    .getCount();
        }
    }

    private static String takes(String name) {
        return "latchkey/semaphore-takes/" + name + "/";
    }

    @Test
    void permitsTakenByAnAttemptWhoseAnswerWasLostComeBackOnce() throws Exception {
        String name = "sem-lost-" + UUID.randomUUID();
        DistributedSemaphore semaphore = client.semaphore(name);
        assertThat(semaphore.trySetPermits(2)).isTrue();
        delayNextTxn.set(true);
        assertThatThrownBy(() -> semaphore.tryAcquire(2, Duration.ZERO)).isInstanceOf(LockUnavailableException.class);
        Awaitility.await().atMost(Duration.ofSeconds(20)).ignoreExceptions()
                .until(() -> semaphore.availablePermits() == 2);
        // the late answer arrives (3 op timeouts) and its give-back runs once more: nothing more comes back
        Thread.sleep(4 * OP_TIMEOUT.toMillis());
        assertThat(semaphore.availablePermits()).as("given back exactly once").isEqualTo(2);
        assertThat(keyCount(takes(name))).as("the take's record").isZero();
        assertThat(semaphore.tryAcquire(2, Duration.ZERO)).isTrue();
        semaphore.release(2);
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        assertThat(keyCount(takes(name))).isZero();
    }

    /** A take's transaction that reaches etcd twice takes once: the second finds the first's record. */
    @Test
    void aTakeSentTwiceTakesOnce() throws Exception {
        String name = "sem-twice-" + UUID.randomUUID();
        DistributedSemaphore semaphore = client.semaphore(name);
        assertThat(semaphore.trySetPermits(2)).isTrue();
        duplicateNextTxn.set(true);
        assertThat(semaphore.tryAcquire(1, Duration.ZERO)).isTrue();
        assertThat(duplicateNextTxn).as("the take's transaction was sent twice").isFalse();
        assertThat(copied.get()).as("the copy's outcome").isNotNull().satisfies(st -> assertThat(st.isOk()).isTrue());
        assertThat(semaphore.availablePermits()).as("one permit taken, not two").isEqualTo(1);
        semaphore.release();
        assertThat(semaphore.availablePermits()).isEqualTo(2);
        assertThat(keyCount(takes(name))).isZero();
    }

    @Test
    void aTakeWhoseAnswerArrivedLeavesNoRecordAndCostsNoExtraRoundTrip() throws Exception {
        String name = "sem-answered-" + UUID.randomUUID();
        DistributedSemaphore semaphore = client.semaphore(name);
        assertThat(semaphore.trySetPermits(2)).isTrue();
        semaphore.acquire();
        semaphore.release();
        calls.clear();
        int cycles = 10;
        for (int i = 0; i < cycles; i++) {
            semaphore.acquire();
            semaphore.release();
        }
        System.out.println("calls per " + cycles + " cycles: " + calls);
        long range = calls.getOrDefault("KV/Range", new AtomicLong()).get();
        long txn = calls.getOrDefault("KV/Txn", new AtomicLong()).get();
        System.out.printf("etcd semaphore acquire+release: %.1f Range + %.1f Txn per cycle%n",
                (double) range / cycles, (double) txn / cycles);
        // as before take records: a read and a transaction for the take and for the release (an uncontended acquire
        // takes no watch: the engine subscribes on the first busy answer)
        assertThat(txn).as("transactions of %d cycles", cycles).isEqualTo(2L * cycles);
        assertThat(range).as("reads of %d cycles", cycles).isEqualTo(2L * cycles);
        semaphore.acquire();
        assertThat(keyCount(takes(name))).as("the take's record, until the next transaction").isEqualTo(1);
        assertThat(client.list(name)).as("inspect lists the semaphore, not its take record").singleElement()
                .satisfies(i -> assertThat(i.kind()).isEqualTo("semaphore"));
        semaphore.acquire();
        assertThat(keyCount(takes(name))).as("the second take deleted the first's record").isEqualTo(1);
        semaphore.release(2);
        assertThat(keyCount(takes(name))).as("the release deleted the last record").isZero();
        assertThat(semaphore.availablePermits()).isEqualTo(2);
    }
}
