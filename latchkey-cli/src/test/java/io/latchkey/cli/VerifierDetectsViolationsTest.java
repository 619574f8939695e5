package io.latchkey.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The verifier itself: fed deliberately broken locks, it must report FAIL. The stubs stand for a broken backend, not
 * for a server; the verifier's PASS on real backends is {@link VerifyIT}'s job.
 */
class VerifierDetectsViolationsTest {

    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration WAIT = Duration.ofSeconds(5);

    @Test
    void twoHoldersAtOnceAndRepeatedTokensAreFailures() throws InterruptedException {
        AtomicLong tokens = new AtomicLong();
        // Lets every caller in at once and hands out tokens in call order, which is not grant order once two are in.
        Function<String, DistributedLock> noExclusion = name -> brokenLock(name, () -> tokens.incrementAndGet() / 2);
        ContentionCheck.Outcome o = new ContentionCheck(List.of(noExclusion, noExclusion), List.of("a"), 4, SHORT,
                WAIT).run();
        assertThat(o.mutualExclusion().status()).as(o.toString()).isEqualTo(CheckResult.Status.FAIL);
        assertThat(o.mutualExclusion().evidence()).doesNotContain("max inside 1,");
        assertThat(o.fencing().status()).as(o.toString()).isEqualTo(CheckResult.Status.FAIL);
        assertThat(o.fencing().evidence()).contains("not above the previous").contains("a grant #");
    }

    @Test
    void aRealLockWithRepeatedTokensFailsOnlyTheFencingCheck() throws InterruptedException {
        try (LockClient one = LockClient.connect("mem://verifier-self-test");
                LockClient two = LockClient.connect("mem://verifier-self-test")) {
            Function<String, DistributedLock> first = name -> constantToken(one.lock(name));
            Function<String, DistributedLock> second = name -> constantToken(two.lock(name));
            ContentionCheck.Outcome o = new ContentionCheck(List.of(first, second), List.of("x", "y"), 2, SHORT,
                    WAIT).run();
            assertThat(o.mutualExclusion().status()).as(o.toString()).isEqualTo(CheckResult.Status.PASS);
            assertThat(o.fencing().status()).as(o.toString()).isEqualTo(CheckResult.Status.FAIL);
            assertThat(o.fencing().evidence()).contains("token 7 after 7");
        }
    }

    @Test
    void aCorrectBackendPasses() throws InterruptedException {
        try (LockClient one = LockClient.connect("mem://verifier-self-test-ok");
                LockClient two = LockClient.connect("mem://verifier-self-test-ok")) {
            ContentionCheck.Outcome o = new ContentionCheck(List.of(one::lock, two::lock), List.of("x"), 2, SHORT,
                    WAIT).run();
            assertThat(o.mutualExclusion().status()).as(o.toString()).isEqualTo(CheckResult.Status.PASS);
            assertThat(o.fencing().status()).as(o.toString()).isEqualTo(CheckResult.Status.PASS);
        }
    }

    @Test
    void aLockTakenBeforeItsLeaseIsOverIsAFailure() throws InterruptedException {
        // The stub ignores the holder's lease, so the other client gets the lock at once.
        CheckResult r = LeaseChecks.leaseExpiry(brokenLock("e", () -> 1), brokenLock("e", () -> 2),
                Duration.ofSeconds(2));
        assertThat(r.status()).isEqualTo(CheckResult.Status.FAIL);
        assertThat(r.evidence()).contains("before the lease was over");
    }

    @Test
    void aHolderThatIsNotToldIsAFailure() throws InterruptedException {
        // forceUnlock claims success, but the holder's lease never hears of it.
        CheckResult r = LeaseChecks.lostSignal(brokenLock("l", () -> 1), brokenLock("l", () -> 2),
                Duration.ofMillis(10));
        assertThat(r.status()).isEqualTo(CheckResult.Status.FAIL);
        assertThat(r.evidence()).contains("onLost did not run").contains("returned normally");
    }

    private interface Tokens {
        long next();
    }

    /** A "lock" that never excludes anyone. */
    private static DistributedLock brokenLock(String name, Tokens tokens) {
        return stub(DistributedLock.class, (proxy, m, args) -> switch (m.getName()) {
            case "name" -> name;
            case "tryLock" -> true;
            case "unlock" -> null;
            case "forceUnlock" -> true;
            case "fencingToken" -> OptionalLong.of(tokens.next());
            case "tryAcquire", "acquire" -> {
                long token = tokens.next();
                LockLease lease = stub(LockLease.class, (p, lm, la) -> switch (lm.getName()) {
                    case "fencingToken" -> token;
                    case "lockName" -> name;
                    case "release", "close", "onLost" -> null;
                    case "isValid" -> true;
                    default -> throw new UnsupportedOperationException(lm.getName());
                });
                yield m.getName().equals("acquire") ? lease : Optional.of(lease);
            }
            default -> throw new UnsupportedOperationException(m.getName());
        });
    }

    /** A real lock whose every hold claims fencing token 7. */
    private static DistributedLock constantToken(DistributedLock real) {
        return stub(DistributedLock.class, (proxy, m, args) -> {
            if (m.getName().equals("fencingToken")) {
                return OptionalLong.of(7);
            }
            Object result = invoke(real, m, args);
            if (m.getName().equals("tryAcquire") && result instanceof Optional<?> o && o.isPresent()) {
                LockLease lease = (LockLease) o.get();
                return Optional.of(stub(LockLease.class, (p, lm, la) -> lm.getName().equals("fencingToken") ? 7L
                        : invoke(lease, lm, la)));
            }
            return result;
        });
    }

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static <T> T stub(Class<T> type, InvocationHandler handler) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler));
    }
}
