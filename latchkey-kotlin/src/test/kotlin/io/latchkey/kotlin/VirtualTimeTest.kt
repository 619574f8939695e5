package io.latchkey.kotlin

import io.latchkey.LockClient
import java.util.UUID
import kotlin.time.Duration.Companion.days
import kotlin.time.Duration.Companion.hours
import kotlin.time.Duration.Companion.minutes
import kotlinx.coroutines.TimeoutCancellationException
import kotlinx.coroutines.test.currentTime
import kotlinx.coroutines.test.runTest
import kotlinx.coroutines.withTimeout
import org.assertj.core.api.Assertions.assertThat
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/**
 * Timeouts of the caller's own making (`withTimeout`) run on the coroutine's clock, and `kotlinx-coroutines-test`
 * makes that clock virtual: an hour-long wait times out at once in real time, and its cancellation still withdraws
 * the waiter at the (real, in-memory) backend.
 */
class VirtualTimeTest {
    private val store = "mem://virtual-time-" + UUID.randomUUID()
    private val client: LockClient = LockClient.connect(store, testOptions)
    private val other: LockClient = LockClient.connect(store, testOptions)

    @AfterEach
    fun close() {
        client.close()
        other.close()
    }

    @Test
    fun anHourLongLockWaitTimesOutOnTheVirtualClockAndLeavesNoWaiter() = runTest {
        val holder = other.lock("report").acquire()
        val thrown = assertThrows<TimeoutCancellationException> {
            withTimeout(1.hours) { client.lock("report").acquireSuspending() }
        }
        assertThat(thrown).hasMessageContaining("Timed out")
        assertThat(currentTime).`as`("virtual milliseconds").isEqualTo(1.hours.inWholeMilliseconds)
        holder.release()
        // the cancelled waiter was withdrawn: the lock is free, not handed to a coroutine that is gone
        val lease = other.lock("report").tryAcquireSuspending(kotlin.time.Duration.ZERO)
        assertThat(lease).isNotNull()
        lease!!.releaseSuspending()
    }

    @Test
    fun permitAndLatchWaitsTimeOutOnTheVirtualClock() = runTest {
        val semaphore = client.semaphore("slots")
        assertThat(semaphore.trySetPermits(1)).isTrue()
        semaphore.acquireSuspending()
        assertThrows<TimeoutCancellationException> {
            withTimeout(30.minutes) { other.semaphore("slots").withPermits { error("must not run") } }
        }
        semaphore.releaseSuspending()
        assertThat(other.semaphore("slots").tryAcquireSuspending(1, kotlin.time.Duration.ZERO))
            .`as`("the cancelled waiter took no permit").isTrue()

        val latch = client.countDownLatch("start")
        assertThat(latch.trySetCount(1)).isTrue()
        assertThrows<TimeoutCancellationException> { withTimeout(2.days) { latch.awaitSuspending() } }
        assertThat(currentTime).isEqualTo(30.minutes.inWholeMilliseconds + 2.days.inWholeMilliseconds)
    }

    @Test
    fun aCampaignTimesOutOnTheVirtualClockAndLeavesTheElectionToOthers() = runTest {
        val leader = other.leaderElection("scheduler", "leader").awaitLeadershipSuspending()
        assertThrows<TimeoutCancellationException> {
            withTimeout(1.days) { client.leaderElection("scheduler", "late").awaitLeadershipSuspending() }
        }
        leader.close()
        val next = other.leaderElection("scheduler", "next").awaitLeadershipSuspending()
        assertThat(next.term()).isGreaterThan(leader.term())
        next.close()
    }
}
