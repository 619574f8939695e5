package io.latchkey.kotlin

import io.latchkey.Capability
import io.latchkey.LockClient
import io.latchkey.LockLease
import io.latchkey.LockLostException
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.LinkedBlockingQueue
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import java.util.concurrent.atomic.AtomicReference
import kotlin.coroutines.CoroutineContext
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.CoroutineDispatcher
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.collectLatest
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import kotlinx.coroutines.withTimeout
import kotlinx.coroutines.yield
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Assumptions
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout

/**
 * What the coroutine API promises, on every backend: waiting parks no thread, a cancelled waiter leaves nothing
 * held, and a block whose lock or leadership is lost is cancelled with [LockLostException].
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
abstract class CoroutineContract {

    /** A new client of the backend under test, sharing lock state with the others of this test. */
    protected abstract fun newClient(): LockClient

    private val clients = CopyOnWriteArrayList<LockClient>()
    private val prefix = "kt:" + UUID.randomUUID().toString().substring(0, 8) + ":"
    private val sequence = AtomicInteger()

    protected fun client(): LockClient = newClient().also { clients += it }

    protected fun newName(): String = prefix + sequence.incrementAndGet()

    @AfterEach
    fun closeClients() {
        clients.forEach { it.close() }
    }

    /** Waits on the IO dispatcher for the lock to be free: a fresh client acquires it within [within]. */
    private suspend fun assertFreeSoon(name: String, within: Duration = 10.seconds) = withContext(Dispatchers.IO) {
        val lease = client().lock(name).tryAcquire(java.time.Duration.ofMillis(within.inWholeMilliseconds))
        assertThat(lease).`as`("lock '%s' free again within %s", name, within).isPresent
        lease.get().release()
    }

    @Test
    fun fiveHundredWaitersOnOneThreadAllGetTheLockInTurn() {
        val name = newName()
        val lock = client().lock(name)
        val inside = AtomicInteger()
        val maxInside = AtomicInteger()
        val tokens = CopyOnWriteArrayList<Long>()
        val threads = java.util.concurrent.ConcurrentHashMap.newKeySet<Thread>()
        val executor = Executors.newSingleThreadExecutor { Thread(it, "kt-single-dispatcher") }
        try {
            runBlocking(executor.asCoroutineDispatcher()) {
                repeat(500) {
                    launch {
                        lock.withLock { lease ->
                            maxInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
                            threads += Thread.currentThread()
                            tokens += lease.fencingToken()
                            yield() // give the other 499 a chance to break in
                            inside.decrementAndGet()
                        }
                    }
                }
            }
        } finally {
            executor.shutdownNow()
        }
        assertThat(tokens).hasSize(500)
        assertThat(maxInside.get()).`as`("holders inside at once").isEqualTo(1)
        assertThat(tokens).`as`("fencing tokens strictly increase").isSorted.doesNotHaveDuplicates()
        assertThat(threads).`as`("threads the holders ran on").hasSize(1)
        assertThat(threads.single().name).startsWith("kt-single-dispatcher") // debug mode appends the coroutine
    }

    @Test
    fun cancellingAWaiterWithdrawsItAndLeavesNothingHeld(): Unit = runBlocking {
        val name = newName()
        val holder = client().lock(name).acquireSuspending()
        val waiter = client().lock(name)
        val job = launch { waiter.acquireSuspending(); error("the waiter must not get the lock") }
        delay(300) // the waiter is queued
        job.cancelAndJoin()
        assertThat(job.isCancelled).isTrue()
        holder.releaseSuspending()
        assertFreeSoon(name)
    }

    @Test
    fun aGrantThatRacesTheCancelIsGivenBack() {
        // The grant completes the future, but the coroutine is cancelled before its dispatcher resumes it with the
        // lease: the lease must be released, not dropped.
        val name = newName()
        val lock = client().lock(name)
        val holder = lock.acquire()
        val dispatcher = ManualDispatcher()
        val acquired = AtomicReference<LockLease?>()
        val job = CoroutineScope(dispatcher).launch { acquired.set(lock.acquireSuspending()) }
        dispatcher.runReady() // the coroutine starts and suspends on the future
        holder.release() // the waiter is granted; its resumption is queued on the dispatcher
        val resumption = dispatcher.next(10.seconds)
        assertThat(resumption).`as`("the grant arrived").isNotNull
        job.cancel()
        resumption!!.run()
        dispatcher.runReady()
        assertThat(job.isCancelled).isTrue()
        assertThat(acquired.get()).isNull()
        runBlocking { assertFreeSoon(name) }
    }

    @Test
    fun cancelsRacingReleasesNeverLeaveTheLockHeld(): Unit = runBlocking(Dispatchers.Default) {
        val name = newName()
        val a = client().lock(name)
        val b = client().lock(name)
        repeat(100) { i ->
            val holder = a.acquireSuspending()
            val waiter = launch { b.acquireSuspending().releaseSuspending() }
            if (i % 2 == 0) yield() else delay((i % 5).toLong())
            val release = async { holder.releaseSuspending() }
            if (i % 3 == 0) yield()
            waiter.cancel()
            release.await()
            waiter.join()
        }
        assertFreeSoon(name)
    }

    @Test
    fun aLostLeaseCancelsTheBlockWithLockLostException(): Unit = runBlocking {
        val lock = client().lock(newName())
        val seen = CompletableDeferred<Throwable>()
        val thrown = runCatching {
            lock.withLock(leaseTime = 600.milliseconds) {
                try {
                    awaitCancellation()
                } catch (e: CancellationException) {
                    seen.complete(e)
                    throw e
                }
            }
        }.exceptionOrNull()
        assertThat(thrown).isInstanceOf(LockLostException::class.java)
        assertThat(causes(seen.await()).filterIsInstance<LockLostException>().firstOrNull())
            .`as`("the cancellation's cause").isSameAs(thrown)
    }

    @Test
    fun aForceUnlockedWatchdogLeaseCancelsTheBlockAndItsChildren(): Unit = runBlocking {
        val name = newName()
        val lock = client().lock(name)
        val child = CompletableDeferred<Job>()
        val thrown = runCatching {
            withTimeout(30.seconds) {
                lock.withLock { lease ->
                    child.complete(launch { awaitCancellation() })
                    assertThat(lease.isValid).isTrue()
                    withContext(Dispatchers.IO) { client().lock(name).forceUnlock() }
                    awaitCancellation()
                }
            }
        }.exceptionOrNull()
        assertThat(thrown).isInstanceOf(LockLostException::class.java)
        assertThat(child.await().isCancelled).`as`("the block's children are cancelled too").isTrue()
    }

    @Test
    fun withLockReturnsTheBlocksValueAndReleases(): Unit = runBlocking {
        val name = newName()
        val token = client().lock(name).withLock { it.fencingToken() }
        assertThat(token).isPositive()
        assertFreeSoon(name)
        assertThatThrownBy { runBlocking { client().lock(name).withLock { error("boom") } } }
            .isInstanceOf(IllegalStateException::class.java).hasMessage("boom")
        assertFreeSoon(name)
    }

    @Test
    fun tryWithLockGivesUpAfterTheWait(): Unit = runBlocking {
        val name = newName()
        val holder = client().lock(name).acquireSuspending()
        assertThat(client().lock(name).tryWithLock(200.milliseconds) { "ran" }).isNull()
        assertThat(client().lock(name).tryAcquireSuspending(Duration.ZERO)).isNull()
        holder.releaseSuspending()
        assertThat(client().lock(name).tryWithLock(5.seconds) { "ran" }).isEqualTo("ran")
    }

    @Test
    fun badArgumentsAreRejectedWithTheReason(): Unit = runBlocking {
        val lock = client().lock(newName())
        lock.tryAcquireSuspending((-1).seconds)!!.releaseSuspending() // a negative wait tries once
        assertThatThrownBy { runBlocking { lock.acquireSuspending(Duration.ZERO) } }
            .isInstanceOf(IllegalArgumentException::class.java).hasMessageContaining("leaseTime must be positive")
        assertThatThrownBy { runBlocking { lock.acquireSuspending(Duration.INFINITE) } }
            .isInstanceOf(IllegalArgumentException::class.java).hasMessageContaining("leaseTime must be positive")
        assertThatThrownBy { runBlocking { client().semaphore(newName()).acquireSuspending(0) } }
            .isInstanceOf(IllegalArgumentException::class.java).hasMessageContaining("permits must be at least 1")
        assertThat(client().countDownLatch(newName()).awaitSuspending((-1).seconds)).isTrue()
    }

    @Test
    fun readersShareAndWritersExclude(): Unit = runBlocking(Dispatchers.Default) {
        val c = client()
        Assumptions.assumeTrue(Capability.READ_WRITE_LOCK in c.capabilities(), "no read-write lock on this backend")
        val rw = c.readWriteLock(newName())
        val readersInside = AtomicInteger()
        val bothReading = CompletableDeferred<Unit>()
        val readers = List(2) {
            launch {
                rw.withReadLock {
                    if (readersInside.incrementAndGet() == 2) bothReading.complete(Unit)
                    withTimeout(20.seconds) { bothReading.await() }
                }
            }
        }
        readers.forEach { it.join() }
        val writersInside = AtomicInteger()
        val maxWriters = AtomicInteger()
        List(10) {
            launch {
                rw.withWriteLock {
                    maxWriters.accumulateAndGet(writersInside.incrementAndGet(), Math::max)
                    delay(5)
                    writersInside.decrementAndGet()
                }
            }
        }.forEach { it.join() }
        assertThat(maxWriters.get()).isEqualTo(1)
    }

    @Test
    fun semaphorePermitsBoundTheBlocksAndCancelledWaitersTakeNone(): Unit = runBlocking(Dispatchers.Default) {
        val name = newName()
        val semaphore = client().semaphore(name)
        assertThat(semaphore.trySetPermits(3)).isTrue()
        val inside = AtomicInteger()
        val maxInside = AtomicInteger()
        val entries = AtomicInteger()
        val threeInside = CompletableDeferred<Unit>()
        List(30) {
            launch {
                semaphore.withPermits {
                    val now = inside.incrementAndGet()
                    maxInside.accumulateAndGet(now, Math::max)
                    if (now == 3) threeInside.complete(Unit)
                    // the first three entrants stay until all three permits are in use at once
                    if (entries.incrementAndGet() <= 3) withTimeout(20.seconds) { threeInside.await() } else delay(2)
                    inside.decrementAndGet()
                }
            }
        }.forEach { it.join() }
        assertThat(maxInside.get()).isEqualTo(3)

        semaphore.acquireSuspending(3)
        val waiter = launch { client().semaphore(name).acquireSuspending(2) }
        delay(300)
        waiter.cancelAndJoin()
        semaphore.releaseSuspending(3)
        assertThat(client().semaphore(name).tryAcquireSuspending(3, 10.seconds)).`as`("all 3 permits back").isTrue()
        semaphore.releaseSuspending(3)
    }

    @Test
    fun expirablePermitsAreTakenAndReleased(): Unit = runBlocking(Dispatchers.Default) {
        val name = newName()
        val semaphore = client().permitExpirableSemaphore(name)
        assertThat(semaphore.trySetPermits(1)).isTrue()
        val id = semaphore.withPermit(30.seconds) { permitId ->
            assertThat(client().permitExpirableSemaphore(name).tryAcquireSuspending(Duration.ZERO, 30.seconds))
                .isNull()
            permitId
        }
        assertThat(id).isNotBlank()
        val again = client().permitExpirableSemaphore(name).tryAcquireSuspending(10.seconds, 30.seconds)
        assertThat(again).isNotNull()
        assertThat(semaphore.releaseSuspending(again!!)).isTrue()
    }

    @Test
    fun latchWaitersOnOneThreadAllResumeAtZero() {
        val name = newName()
        val latch = client().countDownLatch(name)
        assertThat(latch.trySetCount(2)).isTrue()
        val resumed = AtomicInteger()
        val executor = Executors.newSingleThreadExecutor { Thread(it, "kt-latch-dispatcher") }
        try {
            runBlocking(executor.asCoroutineDispatcher()) {
                val waiters = List(200) { launch { latch.awaitSuspending(); resumed.incrementAndGet() } }
                assertThat(latch.awaitSuspending(100.milliseconds)).isFalse()
                latch.countDownSuspending()
                client().countDownLatch(name).countDownSuspending()
                withTimeout(30.seconds) { waiters.forEach { it.join() } }
            }
        } finally {
            executor.shutdownNow()
        }
        assertThat(resumed.get()).isEqualTo(200)
    }

    @Test
    fun whileLeaderIsCancelledWhenTheLeadershipIsRevoked(): Unit = runBlocking(Dispatchers.Default) {
        val electionName = newName().replace(':', '-')
        val first = client().leaderElection(electionName, "first")
        val second = client().leaderElection(electionName, "second")
        val firstLeads = CompletableDeferred<Long>()
        val firstRun = async {
            runCatching {
                first.whileLeader { leadership ->
                    firstLeads.complete(leadership.term())
                    awaitCancellation()
                }
            }.exceptionOrNull()
        }
        val firstTerm = withTimeout(30.seconds) { firstLeads.await() }
        val secondTerm = async { second.whileLeader { it.term() } }
        delay(200)
        assertThat(secondTerm.isActive).`as`("the second candidate waits").isTrue()
        withContext(Dispatchers.IO) { client().lock(first.lockName()).forceUnlock() }
        assertThat(withTimeout(30.seconds) { firstRun.await() }).isInstanceOf(LockLostException::class.java)
        assertThat(withTimeout(30.seconds) { secondTerm.await() }).isGreaterThan(firstTerm)
    }

    @Test
    fun leadershipFlowFollowsElectionRevocationAndReelection(): Unit = runBlocking(Dispatchers.Default) {
        val electionName = newName().replace(':', '-')
        val election = client().leaderElection(electionName, "flow")
        val seen = CopyOnWriteArrayList<Long?>()
        val terms = kotlinx.coroutines.channels.Channel<Long?>(kotlinx.coroutines.channels.Channel.UNLIMITED)
        val collector = launch {
            election.leadership().collectLatest { l ->
                seen += l?.term()
                terms.send(l?.term())
            }
        }
        assertThat(withTimeout(30.seconds) { terms.receive() }).isNull()
        val term1 = withTimeout(30.seconds) { terms.receive() }
        assertThat(term1).isNotNull()
        withContext(Dispatchers.IO) { client().lock(election.lockName()).forceUnlock() }
        assertThat(withTimeout(30.seconds) { terms.receive() }).`as`("revoked").isNull()
        val term2 = withTimeout(30.seconds) { terms.receive() }
        assertThat(term2).`as`("re-elected with a later term").isGreaterThan(term1)
        collector.cancelAndJoin()
        // cancelling the collection resigned: another candidate is elected at once
        val other = client().leaderElection(electionName, "other")
        withTimeout(30.seconds) { other.whileLeader { it.term() } }
    }

    @Test
    fun aLeadershipWonByACancelledCampaignIsResigned(): Unit = runBlocking(Dispatchers.Default) {
        val electionName = newName().replace(':', '-')
        val leader = client().leaderElection(electionName, "leader").awaitLeadershipSuspending()
        val campaign = launch { client().leaderElection(electionName, "cancelled").awaitLeadershipSuspending() }
        delay(300)
        campaign.cancelAndJoin()
        withContext(Dispatchers.IO) { leader.close() }
        val next = withTimeout(30.seconds) { client().leaderElection(electionName, "next").whileLeader { it.term() } }
        assertThat(next).isGreaterThan(leader.term())
    }

    @Test
    fun aLeadershipThatRacesTheCancelIsResigned() {
        val electionName = newName().replace(':', '-')
        val leader = client().leaderElection(electionName, "leader").awaitLeadership()
        val dispatcher = ManualDispatcher()
        val won = AtomicReference<io.latchkey.Leadership?>()
        val job = CoroutineScope(dispatcher).launch {
            won.set(client().leaderElection(electionName, "raced").awaitLeadershipSuspending())
        }
        dispatcher.runReady()
        leader.close() // the campaign wins; its resumption is queued on the dispatcher
        val resumption = dispatcher.next(20.seconds)
        assertThat(resumption).`as`("the leadership arrived").isNotNull
        job.cancel()
        resumption!!.run()
        dispatcher.runReady()
        assertThat(won.get()).isNull()
        runBlocking {
            val next = withTimeout(30.seconds) {
                client().leaderElection(electionName, "next").whileLeader { it.term() }
            }
            assertThat(next).isGreaterThan(leader.term())
        }
    }

    @Test
    fun cancelledCampaignsRacingResignationsNeverLeaveALeader(): Unit = runBlocking(Dispatchers.Default) {
        val electionName = newName().replace(':', '-')
        val a = client().leaderElection(electionName, "a")
        val b = client().leaderElection(electionName, "b")
        repeat(30) { i ->
            val leadership = a.awaitLeadershipSuspending()
            val campaign = launch {
                val won = b.awaitLeadershipSuspending()
                withContext(NonCancellable + Dispatchers.IO) { won.close() }
            }
            if (i % 2 == 0) yield() else delay((i % 4).toLong())
            val resign = async(Dispatchers.IO) { leadership.close() }
            if (i % 3 == 0) yield()
            campaign.cancel()
            resign.await()
            campaign.join()
        }
        withTimeout(30.seconds) { client().leaderElection(electionName, "last").whileLeader { it.term() } }
    }
}

/**
 * The cause chain: the cancellation a block sees has the [LockLostException] as its cause, or (kotlinx's debug mode,
 * which tests run in, recovers stack traces by copying) as its cause's cause.
 */
internal fun causes(t: Throwable): List<Throwable> = generateSequence(t) { it.cause }.take(10).toList()

/** A dispatcher whose queue the test runs by hand, to order a resumption against a cancellation. */
internal class ManualDispatcher : CoroutineDispatcher() {
    private val queue = LinkedBlockingQueue<Runnable>()

    override fun dispatch(context: CoroutineContext, block: Runnable) {
        queue.add(block)
    }

    fun runReady() {
        while (true) {
            (queue.poll() ?: return).run()
        }
    }

    fun next(within: Duration): Runnable? = queue.poll(within.inWholeMilliseconds, TimeUnit.MILLISECONDS)
}
