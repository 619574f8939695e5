package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.DistributedCountDownLatch;
import io.latchkey.DistributedLock;
import io.latchkey.DistributedSemaphore;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.PermitExpirableSemaphore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
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
        assertRejected(() -> lock.acquire(Duration.ZERO), "leaseTime");
        assertRejected(() -> lock.acquire(negative), "leaseTime");
        assertRejected(() -> lock.tryAcquire(Duration.ZERO, negative), "leaseTime");
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
    void negativeWaitsTryOnceOnEveryTimedMethodLikeJavaUtilConcurrent() throws Exception {
        // The JDK treats a negative timeout as zero everywhere (Lock.tryLock, Semaphore.tryAcquire, await).
        Duration negative = Duration.ofSeconds(-1);
        Duration mostNegative = Duration.ofSeconds(Long.MIN_VALUE);
        DistributedLock lock = client().lock(newName());
        assertThat(lock.tryLock(negative, Duration.ofSeconds(30))).isTrue();
        lock.unlock();
        lock.tryAcquire(negative).orElseThrow().release();
        lock.tryAcquire(mostNegative, Duration.ofSeconds(30)).orElseThrow().release();
        lock.tryAcquireAsync(negative, null).get(5, TimeUnit.SECONDS).orElseThrow().release();
        client().leaderElection(newName()).tryAwaitLeadership(negative).orElseThrow().close();
        DistributedLock other = openClient(options()).lock(lock.name());
        other.lock();
        try {
            long start = System.nanoTime();
            assertThat(lock.tryLock(negative, Duration.ofSeconds(30))).isFalse();
            assertThat(lock.tryAcquire(negative)).isEmpty();
            assertThat(lock.tryAcquire(mostNegative, Duration.ofSeconds(30))).isEmpty();
            assertThat(lock.tryAcquireAsync(negative, null).get(5, TimeUnit.SECONDS)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2).plus(slack()));
        } finally {
            other.unlock();
        }
        Set<Capability> capabilities = client().capabilities();
        if (capabilities.contains(Capability.SEMAPHORE)) {
            DistributedSemaphore semaphore = client().semaphore(newName());
            assertThat(semaphore.tryAcquire(1, negative)).isFalse();
            assertThat(semaphore.tryAcquireAsync(1, negative).get(5, TimeUnit.SECONDS)).isFalse();
            semaphore.addPermits(1);
            assertThat(semaphore.tryAcquire(1, mostNegative)).isTrue();
        }
        if (capabilities.contains(Capability.PERMIT_EXPIRABLE_SEMAPHORE)) {
            PermitExpirableSemaphore permits = client().permitExpirableSemaphore(newName());
            assertThat(permits.tryAcquire(negative, Duration.ofSeconds(30))).isEmpty();
            permits.addPermits(1);
            assertThat(permits.release(permits.tryAcquire(negative, Duration.ofSeconds(30)).orElseThrow())).isTrue();
        }
        if (capabilities.contains(Capability.COUNT_DOWN_LATCH)) {
            DistributedCountDownLatch latch = client().countDownLatch(newName());
            assertThat(latch.await(negative)).as("an open latch").isTrue();
            assertThat(latch.trySetCount(1)).isTrue();
            assertThat(latch.await(negative)).isFalse();
            assertThat(latch.await(mostNegative)).isFalse();
        }
    }

    @Test
    void leasesBeyondTheMaximumAreRejectedBeforeAnythingIsSentAndLongWaitsMeanForever() throws Exception {
        DistributedLock lock = client().lock(newName());
        for (Duration lease : List.of(Duration.ofSeconds(Long.MAX_VALUE), ClientOptions.MAX_LEASE_TIME.plusMillis(1),
                java.time.temporal.ChronoUnit.FOREVER.getDuration())) {
            assertRejected(() -> lock.lock(lease), "MAX_LEASE_TIME");
            assertRejected(() -> lock.acquire(lease), "MAX_LEASE_TIME");
            assertRejected(() -> lock.tryLock(Duration.ZERO, lease), "MAX_LEASE_TIME");
            assertRejected(() -> lock.tryAcquire(Duration.ofSeconds(Long.MAX_VALUE), lease), "MAX_LEASE_TIME");
            assertRejected(() -> lock.tryAcquireAsync(Duration.ZERO, lease).get(5, TimeUnit.SECONDS),
                    "MAX_LEASE_TIME");
            assertRejected(() -> ClientOptions.builder().watchdogTimeout(lease), "MAX_LEASE_TIME");
            assertRejected(() -> ClientOptions.builder().operationTimeout(lease), "MAX_LEASE_TIME");
            if (client().capabilities().contains(Capability.PERMIT_EXPIRABLE_SEMAPHORE)) {
                PermitExpirableSemaphore permits = client().permitExpirableSemaphore(newName());
                permits.addPermits(1);
                assertRejected(() -> permits.acquire(lease), "MAX_LEASE_TIME");
                assertRejected(() -> permits.tryAcquire(Duration.ZERO, lease), "MAX_LEASE_TIME");
                String id = permits.acquire(Duration.ofSeconds(30));
                assertRejected(() -> permits.updateLease(id, lease), "MAX_LEASE_TIME");
                assertThat(permits.release(id)).isTrue();
            }
        }
        assertThat(lock.isLocked()).as("a rejected call took the lock").isFalse();
        // The maximum itself works on every backend, and so do waits too long to represent.
        LockLease longest = lock.acquire(ClientOptions.MAX_LEASE_TIME);
        assertThat(longest.isValid()).isTrue();
        longest.release();
        lock.tryAcquire(Duration.ofSeconds(Long.MAX_VALUE)).orElseThrow().release();
        assertThat(lock.tryLock(Duration.ofSeconds(Long.MAX_VALUE), Duration.ofSeconds(30))).isTrue();
        lock.unlock();
        assertThat(lock.tryLock(Long.MAX_VALUE, TimeUnit.DAYS)).isTrue();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @Test
    void namesThatAreNotWellFormedUtf16AreRejectedEverywhere() throws Exception {
        LockClient c = client();
        Set<Capability> capabilities = c.capabilities();
        for (String bad : List.of("\uD800", "\uDBFF", "\uDC00", "a\uD83D", "\uDE00\uD83D", "x\uDFFFy")) {
            assertRejected(() -> c.lock(bad), "UTF-16");
            assertRejected(() -> c.leaderElection(bad), "UTF-16");
            assertRejected(() -> c.leaderElection(newName(), bad), "UTF-16");
            assertRejected(() -> ClientOptions.builder().namespace(bad), "UTF-16");
            if (capabilities.contains(Capability.FENCED_STORE)) {
                assertRejected(() -> c.fencedStore(bad), "UTF-16");
                assertRejected(() -> c.fencedStore(newName()).get(bad), "UTF-16");
            }
            for (Map.Entry<Capability, Function<String, Object>> f : factories(c).entrySet()) {
                if (capabilities.contains(f.getKey())) {
                    assertRejected(() -> f.getValue().apply(bad), "UTF-16");
                }
            }
        }
        // "?" is what UTF-8 makes of a lone surrogate: an ordinary name, and a surrogate pair is fine.
        String ns = newNamespace();
        LockClient a = openClient(options().toBuilder().namespace(ns).build());
        DistributedLock question = a.lock("?");
        assertThat(question.tryLock()).isTrue();
        try {
            assertThat(a.lock("\uD83D\uDD12").tryLock()).isTrue();
            a.lock("\uD83D\uDD12").unlock();
        } finally {
            question.unlock();
        }
    }

    @Test
    void namesNeverMapOntoKeysTheLibraryKeepsForItselfOrForOtherNames() throws Exception {
        String ns = newNamespace();
        LockClient a = openClient(options().toBuilder().namespace(ns).build());
        LockClient b = openClient(options().toBuilder().namespace(ns).build());
        LockClient sub = openClient(options().toBuilder().namespace(ns + "sub/").build());
        // Each of these mapped onto a bookkeeping key of Redis (token counters, the per-name counter of the earlier
        // layout, synchronizer and store keys). A backend may refuse them, naming the reserved form, or keep them
        // apart; either way nothing else may be disturbed.
        List<String> probes = List.of("latchkey:tokens", "sub/latchkey:tokens", "{x}:latchkey:tokens",
                "{x}:latchkey:fence", "x:latchkey:fence", "{" + ns + "x}:latchkey:fence", "{x}:latchkey:semaphore",
                "{x}:latchkey:store:k", "{x}:latchkey:rw:write", "{x}:latchkey:fair:queue");
        DistributedLock x = b.lock("x");
        DistributedLock y = sub.lock("y");
        for (String probe : probes) {
            Throwable refused = catchThrowable(() -> a.lock(probe));
            if (refused != null) {
                assertThat(refused).as("lock %s", probe).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("reserved");
                continue;
            }
            DistributedLock held = a.lock(probe);
            assertThat(held.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(30))).as("lock %s", probe).isTrue();
            try {
                for (DistributedLock bystander : List.of(x, y)) {
                    OptionalLong before = tokenOf(bystander);
                    OptionalLong after = tokenOf(bystander);
                    assertThat(after.getAsLong()).as("%s while %s is held", bystander.name(), probe)
                            .isGreaterThan(before.getAsLong());
                }
            } finally {
                held.unlock();
            }
        }
        // An election's locks carry its name and the candidate id: refused at once, or working.
        for (ThrowingCallable election : List.<ThrowingCallable>of(
                () -> a.leaderElection("e:latchkey:x").tryAwaitLeadership(Duration.ZERO).orElseThrow().close(),
                () -> a.leaderElection(newName(), "host:latchkey:1").tryAwaitLeadership(Duration.ZERO).orElseThrow()
                        .close())) {
            Throwable refused = catchThrowable(election);
            if (refused != null) {
                assertThat(refused).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
            }
        }
        Set<Capability> capabilities = a.capabilities();
        // "{<namespace>x}" has the hash tag Redis builds the keys of "x"'s synchronizers on.
        if (capabilities.contains(Capability.SEMAPHORE)) {
            String name = newName();
            Throwable refused = catchThrowable(() -> a.semaphore("{" + ns + name + "}"));
            if (refused != null) {
                assertThat(refused).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
            } else {
                a.semaphore(name).addPermits(3);
                assertThat(a.semaphore("{" + ns + name + "}").availablePermits()).isZero();
            }
        }
        if (capabilities.contains(Capability.COUNT_DOWN_LATCH)) {
            String name = newName();
            Throwable refused = catchThrowable(() -> a.countDownLatch("{" + ns + name + "}"));
            if (refused != null) {
                assertThat(refused).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
            } else {
                assertThat(a.countDownLatch(name).trySetCount(2)).isTrue();
                assertThat(a.countDownLatch("{" + ns + name + "}").getCount()).isZero();
            }
        }
        if (capabilities.contains(Capability.FENCED_STORE)) {
            String name = newName();
            Throwable refused = catchThrowable(() -> a.fencedStore("{" + ns + name + "}"));
            if (refused != null) {
                assertThat(refused).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
            } else {
                try (LockLease lease = a.lock(name).acquire()) {
                    a.fencedStore(name).put(lease, "k", new byte[] {1});
                }
                assertThat(a.fencedStore("{" + ns + name + "}").get("k")).isEmpty();
            }
        }
    }

    private static OptionalLong tokenOf(DistributedLock lock) throws InterruptedException {
        LockLease lease = lock.tryAcquire(Duration.ofSeconds(5)).orElseThrow(
                () -> new AssertionError(lock.name() + " could not be taken"));
        try {
            return OptionalLong.of(lease.fencingToken());
        } finally {
            lease.release();
        }
    }

    private static Map<Capability, Function<String, Object>> factories(LockClient c) {
        Map<Capability, Function<String, Object>> factories = new EnumMap<>(Capability.class);
        factories.put(Capability.LOCK, c::lock);
        factories.put(Capability.FAIR_LOCK, c::fairLock);
        factories.put(Capability.READ_WRITE_LOCK, c::readWriteLock);
        factories.put(Capability.SEMAPHORE, c::semaphore);
        factories.put(Capability.PERMIT_EXPIRABLE_SEMAPHORE, c::permitExpirableSemaphore);
        factories.put(Capability.COUNT_DOWN_LATCH, c::countDownLatch);
        return factories;
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
