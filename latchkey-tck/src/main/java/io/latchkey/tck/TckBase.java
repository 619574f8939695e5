package io.latchkey.tck;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import static org.awaitility.Awaitility.await;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * What every contract test shares: the backend hooks, short test timings, unique lock names per test, and clean-up
 * of every client and thread a test opened.
 *
 * <p>A backend's test suite extends each {@code …Tck} class once and implements {@link #newClient(ClientOptions)}
 * and {@link #backendName()}. The tests use only the public {@code io.latchkey} API.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
public abstract class TckBase {

    private static final Map<Class<?>, Set<Capability>> CAPABILITIES = new ConcurrentHashMap<>();

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<Forked<?>> forks = new CopyOnWriteArrayList<>();
    private final AtomicInteger nameSequence = new AtomicInteger();
    private String namePrefix;
    private LockClient client;

    /**
     * Creates a new, independent client of the backend under test: each call must return a distinct client (its
     * own connection and {@link LockClient#clientId()}) that shares lock state with the other clients of the same
     * test, so that exclusion across clients — and across a client restart — can be tested. The TCK closes it.
     */
    protected abstract LockClient newClient(ClientOptions options);

    /**
     * The backend's name as it appears in messages, such as {@code "mem"} or {@code "redis"}: errors about
     * unsupported primitives and unknown URI schemes must mention it.
     */
    protected abstract String backendName();

    /** The watchdog timeout of the test clients: short, so that renewal and loss happen within a test. */
    protected Duration watchdogTimeout() {
        return Duration.ofSeconds(1);
    }

    /**
     * How much later than the ideal moment an event may happen (a waiter waking, a loss being noticed) on a busy
     * 2-core CI machine. Backends with slower notification paths may widen it.
     */
    protected Duration slack() {
        return Duration.ofSeconds(5);
    }

    /** The options of the test clients: short watchdog and operation timeout. */
    protected ClientOptions options() {
        return ClientOptions.builder()
                .watchdogTimeout(watchdogTimeout())
                .operationTimeout(Duration.ofSeconds(3))
                .build();
    }

    @BeforeEach
    final void nameThisTest(TestInfo info) {
        String method = info.getTestMethod().map(m -> m.getName()).orElse("test");
        namePrefix = "tck:" + method + ":" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    final void closeEverything() throws InterruptedException {
        List<Throwable> failures = new ArrayList<>();
        for (Forked<?> fork : forks) {
            fork.thread().interrupt();
        }
        for (Forked<?> fork : forks) {
            fork.thread().join(TimeUnit.SECONDS.toMillis(5));
            if (fork.thread().isAlive()) {
                failures.add(new AssertionError("test thread " + fork.thread().getName()
                        + " did not stop within 5 s of being interrupted"));
            }
        }
        for (LockClient c : clients) {
            try {
                c.close();
            } catch (Throwable t) {
                failures.add(new AssertionError("closing client " + c.clientId() + " failed", t));
            }
        }
        clients.clear();
        forks.clear();
        client = null;
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("clean-up failed");
            failures.forEach(error::addSuppressed);
            throw error;
        }
    }

    /** The test's main client, opened on first use with {@link #options()}. */
    protected final LockClient client() {
        if (client == null) {
            client = openClient();
        }
        return client;
    }

    /** Opens another independent client with {@link #options()}; closed after the test. */
    protected final LockClient openClient() {
        return openClient(options());
    }

    /** Opens another independent client; closed after the test. */
    protected final LockClient openClient(ClientOptions options) {
        LockClient c = newClient(options);
        clients.add(c);
        return c;
    }

    /** A lock name no other test uses. */
    protected final String newName() {
        return namePrefix + ":" + nameSequence.incrementAndGet();
    }

    /** A namespace no other test uses, for tests that need fixed lock names. */
    protected final String newNamespace() {
        return namePrefix.toLowerCase(Locale.ROOT) + ":" + nameSequence.incrementAndGet() + "/";
    }

    /** Runs {@code body} on a new named daemon thread; interrupted and joined after the test. */
    protected final <T> Forked<T> fork(String name, Callable<T> body) {
        Forked<T> forked = Forked.start(namePrefix + "-" + name, body);
        forks.add(forked);
        return forked;
    }

    /**
     * Waits until {@code forked} is parked (waiting for a lock, presumably); fails at once, with what it returned or
     * threw, if it finished instead.
     */
    protected final void awaitBlocked(Forked<?> forked) {
        await().atMost(slack()).until(() -> forked.isBlocked() || forked.isDone());
        if (forked.isDone()) {
            Object outcome;
            try {
                outcome = "returned " + forked.result().getNow(null);
            } catch (Exception e) {
                outcome = "threw " + (e.getCause() != null ? e.getCause() : e);
            }
            throw new AssertionError(forked.thread().getName() + " should be waiting but " + outcome);
        }
    }

    /**
     * Skips the test (with the reason) unless the backend lists {@code capability}; {@link ValidationTck} checks
     * that an unlisted primitive is refused. The capabilities are asked once per test class.
     */
    protected final void assumeCapability(Capability capability) {
        Set<Capability> capabilities = CAPABILITIES.computeIfAbsent(getClass(), k -> client().capabilities());
        Assumptions.assumeTrue(capabilities.contains(capability),
                () -> "the " + backendName() + " backend does not offer " + capability);
    }

    /** Milliseconds since {@code startNanos} ({@link System#nanoTime()}). */
    /**
     * Calls an asynchronous method of a primitive, skipping the test (with the reason) where the backend does not
     * offer it yet: its primitive is not on the engine's counted contract.
     */
    protected static <T> java.util.concurrent.CompletableFuture<T> asyncOrSkip(
            java.util.function.Supplier<java.util.concurrent.CompletableFuture<T>> call) {
        try {
            return call.get();
        } catch (UnsupportedOperationException e) {
            org.junit.jupiter.api.Assumptions.abort("not offered by this backend yet: " + e.getMessage());
            throw e;
        }
    }

    protected static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }
}
