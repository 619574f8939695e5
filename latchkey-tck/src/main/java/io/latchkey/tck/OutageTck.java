package io.latchkey.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import io.latchkey.LockLease;
import io.latchkey.LockLostException;
import io.latchkey.LockUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The backend going away: calls fail with {@link LockUnavailableException} within the operation timeout, waiters
 * are not left hanging, held locks are reported lost once their lease could not be renewed, a failed acquire
 * leaves no lock behind, and the client works again once the backend is back.
 */
public abstract class OutageTck extends TckBase {

    /** Makes the backend unreachable for every client of the test (stops the server, or the like). */
    protected abstract void takeBackendDown() throws Exception;

    /** Ends {@link #takeBackendDown()}; the backend may come back empty. Must be harmless when it is up. */
    protected abstract void bringBackendUp() throws Exception;

    /** The operation timeout of the test clients: short, since every test here waits for it. */
    protected Duration operationTimeout() {
        return Duration.ofSeconds(1);
    }

    @Override
    protected ClientOptions options() {
        return super.options().toBuilder().operationTimeout(operationTimeout()).build();
    }

    @AfterEach
    final void backendUpAgain() throws Exception {
        // Runs before the base class closes the clients.
        bringBackendUp();
    }

    @Test
    void callsFailWithLockUnavailableWithinTheOperationTimeout() throws Exception {
        DistributedLock lock = client().lock(newName());
        lock.lock();
        lock.unlock();
        takeBackendDown();
        List<ThrowingCallable> calls = List.of(
                lock::tryLock,
                lock::lock,
                () -> lock.tryLock(10, TimeUnit.SECONDS),
                lock::acquire,
                () -> lock.tryAcquire(Duration.ZERO),
                () -> lock.acquireAsync().get(30, TimeUnit.SECONDS),
                lock::isLocked,
                lock::forceUnlock);
        for (int i = 0; i < calls.size(); i++) {
            long start = System.nanoTime();
            Throwable thrown = unwrap(catchThrowable(calls.get(i)));
            assertThat(thrown).as("call #%d with the backend down", i).isInstanceOf(LockUnavailableException.class);
            assertThat(thrown.getMessage()).isNotBlank();
            assertThat(millisSince(start)).as("ms call #%d took to fail", i)
                    .isLessThan(operationTimeout().plus(slack()).toMillis());
        }
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void waitersFailWhenTheBackendGoesAway() throws Exception {
        String name = newName();
        openClient().lock(name).acquire();
        LockClient waiting = client();
        Forked<Object> threadWaiter = fork("thread-waiter", () -> {
            waiting.lock(name).lock();
            return "acquired";
        });
        awaitBlocked(threadWaiter);
        var asyncWaiter = waiting.lock(name).acquireAsync();
        takeBackendDown();
        Duration bound = watchdogTimeout().plus(operationTimeout()).plus(slack());
        assertThat(threadWaiter.failure(bound)).isInstanceOf(LockUnavailableException.class);
        Throwable asyncFailure = unwrap(catchThrowable(() -> asyncWaiter.get(bound.toMillis(), TimeUnit.MILLISECONDS)));
        assertThat(asyncFailure).isInstanceOf(LockUnavailableException.class);
    }

    @Test
    void heldLocksAreLostWhenRenewalsFail() throws Exception {
        String name = newName();
        // The thread hold is taken first: its lease ends no later than the observed lease's, so once that lease
        // is reported lost the thread hold is lost too (a hold is lost when its own lease can no longer be kept).
        DistributedLock threadLock = client().lock(newName());
        threadLock.lock();
        DistributedLock lock = client().lock(name);
        LockLease lease = lock.acquire();
        AtomicInteger lost = new AtomicInteger();
        lease.onLost(lost::incrementAndGet);
        takeBackendDown();
        await().atMost(watchdogTimeout().plus(slack())).untilAsserted(() -> {
            assertThat(lease.isValid()).isFalse();
            assertThat(lost).hasValue(1);
        });
        bringBackendUp();
        Throwable release = catchThrowable(lease::release);
        assertThat(release).as("release of a lease lost in the outage").isInstanceOf(LockLostException.class);
        assertThatThrownBy(threadLock::unlock).as("unlock of a thread hold lost in the outage")
                .isInstanceOf(LockLostException.class);
        assertThat(lost).hasValue(1);
    }

    @Test
    void aFailedAcquireLeavesNoLockAndTheClientRecovers() throws Exception {
        String name = newName();
        DistributedLock lock = client().lock(name);
        lock.lock();
        lock.unlock();
        takeBackendDown();
        assertThat(unwrap(catchThrowable(lock::acquire))).isInstanceOf(LockUnavailableException.class);
        assertThat(unwrap(catchThrowable(lock::tryLock))).isInstanceOf(LockUnavailableException.class);
        bringBackendUp();
        // In this thread: the lock is owned by the thread that takes it.
        await().atMost(slack()).pollInSameThread()
                .ignoreExceptionsMatching(e -> e instanceof LockUnavailableException)
                .until(lock::tryLock);
        lock.unlock();
        Optional<LockLease> other = openClient().lock(name).tryAcquire(Duration.ofMillis(200));
        assertThat(other).as("no lock left behind by the failed acquires").isPresent();
        other.get().release();
    }

    private static Throwable unwrap(Throwable t) {
        while ((t instanceof ExecutionException || t instanceof CompletionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
