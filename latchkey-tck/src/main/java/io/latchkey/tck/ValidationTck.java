package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * Misuse and edges: names, durations, {@code newCondition}, closed clients, unknown URI schemes, and honest
 * capabilities.
 */
public abstract class ValidationTck extends TckBase {

    @Test
    void badNamesAreRejectedWithTheReason() {
        LockClient c = client();
        assertThatThrownBy(() -> c.lock("")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> c.lock("x".repeat(513))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("512");
        for (String bad : List.of("a\nb", "tab\there", "nul\u0000", "del\u007f", "c1\u0085", "\r")) {
            assertThatThrownBy(() -> c.lock(bad)).as("name %s", bad.codePoints().boxed().toList())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control");
        }
        assertThatThrownBy(() -> c.lock(null)).isInstanceOfAny(NullPointerException.class,
                IllegalArgumentException.class);
    }

    @Test
    void unusualNamesWorkAndAreDistinct() throws Exception {
        String ns = newNamespace();
        LockClient a = openClient(options().toBuilder().namespace(ns).build());
        LockClient b = openClient(options().toBuilder().namespace(ns).build());
        List<String> names = List.of("x".repeat(512), "x".repeat(511), "锁-🔒-ключ", "../x", "x", "/", ".", "..",
                "{braces}", "braces", "{", "}", "*", "?", "a b", " a", "a:b", "a/b", "b", "\\", "%2e%2e",
                "redisson_lock__channel:{x}");
        for (String name : names) {
            DistributedLock held = a.lock(name);
            assertThat(held.name()).isEqualTo(name);
            assertThat(held.tryLock()).as("lock %s", name).isTrue();
            try {
                assertThat(b.lock(name).tryLock()).as("same name %s from another client", name).isFalse();
                for (String otherName : names) {
                    if (!otherName.equals(name)) {
                        DistributedLock other = b.lock(otherName);
                        assertThat(other.tryLock()).as("%s while %s is held", otherName, name).isTrue();
                        other.unlock();
                    }
                }
            } finally {
                held.unlock();
            }
        }
    }

    @Test
    void namespacesSeparateLocksAndCannotBeEscaped() throws Exception {
        String root = newNamespace();
        LockClient left = openClient(options().toBuilder().namespace(root + "left/").build());
        LockClient right = openClient(options().toBuilder().namespace(root + "right/").build());
        LockClient top = openClient(options().toBuilder().namespace(root).build());
        DistributedLock x = left.lock("x");
        x.lock();
        try {
            // A namespace is a prefix: top's "left/x" is left's "x" by design, but no name of "right" reaches it.
            for (var probe : List.of(right.lock("x"), right.lock("../left/x"), right.lock("/../left/x"),
                    right.lock("..\\left\\x"), top.lock("x"), top.lock("left//x"), top.lock("./left/x"))) {
                assertThat(probe.tryLock()).as("%s outside the holder's namespace", probe.name()).isTrue();
                probe.unlock();
            }
            assertThat(openClient(options().toBuilder().namespace(root + "left/").build()).lock("x").tryLock())
                    .as("same namespace, same name").isFalse();
        } finally {
            x.unlock();
        }
    }

    @Test
    void badDurationsAreRejectedWithTheReason() {
        DistributedLock lock = client().lock(newName());
        Duration negative = Duration.ofMillis(-1);
        assertRejected(() -> lock.lock(Duration.ZERO), "leaseTime");
        assertRejected(() -> lock.lock(negative), "leaseTime");
        assertRejected(() -> lock.tryLock(Duration.ofSeconds(1), Duration.ZERO), "leaseTime");
        assertRejected(() -> lock.tryLock(negative, Duration.ofSeconds(1)), "waitTime");
        assertRejected(() -> lock.acquire(Duration.ZERO), "leaseTime");
        assertRejected(() -> lock.acquire(negative), "leaseTime");
        assertRejected(() -> lock.tryAcquire(negative), "waitTime");
        assertRejected(() -> lock.tryAcquire(Duration.ZERO, negative), "leaseTime");
        assertRejected(() -> lock.tryAcquire(negative, Duration.ofSeconds(1)), "waitTime");
        assertRejected(() -> lock.tryAcquireAsync(negative, null).get(5, TimeUnit.SECONDS), "waitTime");
        assertRejected(() -> lock.tryAcquireAsync(Duration.ZERO, Duration.ZERO).get(5, TimeUnit.SECONDS),
                "leaseTime");
        assertThat(lock.isLocked()).as("a rejected call took the lock").isFalse();
        assertThat(lock.getHoldCount()).isZero();
    }

    @Test
    void jucTryLockWithANegativeTimeTriesOnceLikeJavaUtilConcurrent() throws Exception {
        // Lock.tryLock(long, TimeUnit): "If the time is less than or equal to zero, the method will not wait".
        DistributedLock lock = client().lock(newName());
        assertThat(lock.tryLock(-5, TimeUnit.SECONDS)).isTrue();
        lock.unlock();
        DistributedLock other = openClient(options()).lock(lock.name());
        other.lock();
        try {
            long start = System.nanoTime();
            assertThat(lock.tryLock(-1, TimeUnit.MILLISECONDS)).isFalse();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1).plus(slack()));
        } finally {
            other.unlock();
        }
    }

    @Test
    void nullDurationsAreRejected() {
        DistributedLock lock = client().lock(newName());
        for (ThrowingCallable call : List.<ThrowingCallable>of(
                () -> lock.lock((Duration) null),
                () -> lock.tryLock(null, Duration.ofSeconds(1)),
                () -> lock.acquire(null),
                () -> lock.tryAcquire(null),
                () -> lock.tryAcquire(null, Duration.ofSeconds(1)),
                () -> lock.tryLock(1, null))) {
            assertThatThrownBy(call).isInstanceOfAny(NullPointerException.class, IllegalArgumentException.class);
        }
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void nullLeaseTimeMeansWatchdog() throws Exception {
        DistributedLock lock = client().lock(newName());
        assertThat(lock.tryLock(Duration.ZERO, null)).isTrue();
        lock.unlock();
        Optional<LockLease> lease = lock.tryAcquire(Duration.ZERO, null);
        assertThat(lease).isPresent();
        lease.get().release();
    }

    @Test
    void newConditionIsUnsupported() {
        DistributedLock lock = client().lock(newName());
        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void aClosedClientRefusesWork() throws Exception {
        LockClient c = openClient();
        DistributedLock lock = c.lock(newName());
        c.close();
        c.close();
        assertThatThrownBy(() -> c.lock(newName())).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::lock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::tryLock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::lockInterruptibly).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::acquire).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> lock.tryAcquire(Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::isLocked).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(lock::forceUnlock).isInstanceOf(IllegalStateException.class);
        Throwable async = catchThrowable(() -> lock.acquireAsync().get(5, TimeUnit.SECONDS));
        assertThat(unwrap(async)).as("acquireAsync on a closed client").isInstanceOf(IllegalStateException.class);
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void unknownSchemeListsTheSupportedOnes() {
        assertThatThrownBy(() -> LockClient.connect("nosuch://host:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nosuch")
                .hasMessageContaining(backendName());
        assertThatThrownBy(() -> LockClient.connect("no scheme at all", ClientOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void clientIdsAreUniqueUuids() {
        String first = client().clientId();
        String second = openClient().clientId();
        assertThat(first).isNotEqualTo(second);
        assertThat(UUID.fromString(first).toString()).isEqualTo(first);
        assertThat(UUID.fromString(second).toString()).isEqualTo(second);
    }

    @Test
    void capabilitiesAreHonest() {
        LockClient c = client();
        Set<Capability> capabilities = c.capabilities();
        assertThat(capabilities).contains(Capability.LOCK);
        Map<Capability, Function<String, Object>> factories = new EnumMap<>(Capability.class);
        factories.put(Capability.LOCK, c::lock);
        factories.put(Capability.FAIR_LOCK, c::fairLock);
        factories.put(Capability.READ_WRITE_LOCK, c::readWriteLock);
        factories.put(Capability.SEMAPHORE, c::semaphore);
        factories.put(Capability.PERMIT_EXPIRABLE_SEMAPHORE, c::permitExpirableSemaphore);
        factories.put(Capability.COUNT_DOWN_LATCH, c::countDownLatch);
        List<String> problems = new ArrayList<>();
        for (Map.Entry<Capability, Function<String, Object>> factory : factories.entrySet()) {
            String name = newName();
            Throwable thrown = catchThrowable(() -> factory.getValue().apply(name));
            if (capabilities.contains(factory.getKey())) {
                if (thrown != null) {
                    problems.add(factory.getKey() + " is listed but its factory threw " + thrown);
                }
            } else if (!(thrown instanceof UnsupportedOperationException)) {
                problems.add(factory.getKey() + " is not listed but its factory gave "
                        + (thrown == null ? "an object" : thrown.toString()));
            } else if (thrown.getMessage() == null || !thrown.getMessage().contains(backendName())) {
                problems.add(factory.getKey() + ": the message does not name the backend '" + backendName()
                        + "': " + thrown.getMessage());
            }
        }
        assertThat(problems).isEmpty();
    }

    private static void assertRejected(ThrowingCallable call, String parameter) {
        Throwable thrown = unwrap(catchThrowable(call));
        assertThat(thrown).as("expected IllegalArgumentException about %s", parameter)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(parameter);
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof CompletionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
