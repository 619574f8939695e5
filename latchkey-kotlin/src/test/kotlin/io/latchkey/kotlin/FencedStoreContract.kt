package io.latchkey.kotlin

import io.latchkey.FencedStore
import io.latchkey.LockClient
import io.latchkey.StaleLeaseException
import io.latchkey.testing.RedisServerExtension
import java.util.UUID
import java.util.concurrent.CopyOnWriteArrayList
import java.util.concurrent.Executors
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.milliseconds
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.junit.jupiter.api.AfterEach
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.Timeout
import org.junit.jupiter.api.extension.RegisterExtension

/** The suspending [FencedStore] calls: the store's own semantics, with a stale lease as [StaleLeaseException]. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
abstract class FencedStoreContract {

    protected abstract fun newClient(): LockClient

    private val clients = CopyOnWriteArrayList<LockClient>()
    private val prefix = "kt-store:" + UUID.randomUUID().toString().substring(0, 8) + ":"
    private val sequence = AtomicInteger()

    private fun client(): LockClient = newClient().also { clients += it }

    private fun newName(): String = prefix + sequence.incrementAndGet()

    @AfterEach
    fun closeClients() {
        clients.forEach { it.close() }
    }

    @Test
    fun writesReadsSwapsAndDeletesUnderTheLock(): Unit = runBlocking {
        val name = newName()
        val c = client()
        val store = c.fencedStore(name)
        assertThat(store.getSuspending("stock")).isNull()
        c.lock(name).withLock { lease ->
            store.putStringSuspending(lease, "stock", "10")
            assertThat(store.getStringSuspending("stock")).isEqualTo("10")
            assertThat(store.compareAndSetSuspending(lease, "stock", "9".toByteArray(), "8".toByteArray())).isFalse()
            assertThat(store.compareAndSetSuspending(lease, "stock", "10".toByteArray(), "9".toByteArray())).isTrue()
            assertThat(store.compareAndSetSuspending(lease, "new", null, byteArrayOf())).isTrue()
            assertThat(store.getSuspending("new")).isEmpty()
            assertThat(store.deleteSuspending(lease, "new")).isTrue()
            assertThat(store.deleteSuspending(lease, "new")).isFalse()
        }
        // the data outlives the hold, and another client sees it
        assertThat(client().fencedStore(name).getStringSuspending("stock")).isEqualTo("9")
    }

    @Test
    fun aStaleLeaseIsRefusedWithStaleLeaseExceptionAndWritesNothing(): Unit = runBlocking {
        val name = newName()
        val store = client().fencedStore(name)
        val old = client().lock(name).acquireSuspending()
        store.putStringSuspending(old, "k", "old")
        old.releaseSuspending()
        val current = client().lock(name).acquireSuspending()
        store.putStringSuspending(current, "k", "current")
        for (write in listOf<suspend () -> Unit>(
            { store.putStringSuspending(old, "k", "stale") },
            { store.compareAndSetSuspending(old, "k", "current".toByteArray(), "stale".toByteArray()) },
            { store.deleteSuspending(old, "k") },
        )) {
            val thrown = runCatching { write() }.exceptionOrNull()
            assertThat(thrown).isInstanceOf(StaleLeaseException::class.java) // not wrapped in a CompletionException
            assertThat((thrown as StaleLeaseException).fencingToken()).isEqualTo(old.fencingToken())
        }
        assertThat(store.getStringSuspending("k")).isEqualTo("current")
        current.releaseSuspending()
    }

    @Test
    fun aLeaseThatRanOutIsStale(): Unit = runBlocking {
        val name = newName()
        val store = client().fencedStore(name)
        val lease = client().lock(name).acquireSuspending(leaseTime = 300.milliseconds)
        store.putStringSuspending(lease, "k", "in time")
        delay(600)
        assertThatThrownBy { runBlocking { store.putStringSuspending(lease, "k", "late") } }
            .isInstanceOf(StaleLeaseException::class.java)
        assertThat(store.getStringSuspending("k")).isEqualTo("in time")
    }

    @Test
    fun aLeadershipFencesWritesUntilItEnds(): Unit = runBlocking {
        val election = newName()
        val store = client().fencedStore(FencedStore.electionLockName(election))
        val leadership = client().leaderElection(election).whileLeader { leadership ->
            store.putSuspending(leadership, "leader", "a".toByteArray())
            assertThat(store.compareAndSetSuspending(leadership, "leader", "a".toByteArray(), "b".toByteArray()))
                .isTrue()
            assertThat(store.deleteSuspending(leadership, "other")).isFalse()
            leadership
        }
        assertThat(store.getStringSuspending("leader")).isEqualTo("b")
        assertThatThrownBy { runBlocking { store.putSuspending(leadership, "leader", "resigned".toByteArray()) } }
            .isInstanceOf(StaleLeaseException::class.java)
        assertThat(store.getStringSuspending("leader")).isEqualTo("b")
    }

    @Test
    fun waitsParkNoThread() {
        // 200 coroutines on one thread, each taking the lock in turn and bumping a counter in the store
        val name = newName()
        val c = client()
        val store = c.fencedStore(name)
        val executor = Executors.newSingleThreadExecutor { Thread(it, "kt-store-dispatcher") }
        try {
            runBlocking(executor.asCoroutineDispatcher()) {
                repeat(200) {
                    launch {
                        c.lock(name).withLock { lease ->
                            val n = store.getStringSuspending("n")?.toInt() ?: 0
                            store.putStringSuspending(lease, "n", (n + 1).toString())
                        }
                    }
                }
            }
        } finally {
            executor.shutdownNow()
        }
        assertThat(runBlocking { store.getStringSuspending("n") }).isEqualTo("200")
    }

    @Test
    fun badArgumentsAreRejectedWithTheReason(): Unit = runBlocking {
        val name = newName()
        val store = client().fencedStore(name)
        val otherLease = client().lock(newName()).acquireSuspending()
        assertThatThrownBy { runBlocking { store.putStringSuspending(otherLease, "k", "v") } }
            .isInstanceOf(IllegalArgumentException::class.java)
        assertThatThrownBy { runBlocking { store.getSuspending("") } }
            .isInstanceOf(IllegalArgumentException::class.java)
        otherLease.releaseSuspending()
    }
}

class MemFencedStoreTest : FencedStoreContract() {
    private val store = "kotlin-store-" + UUID.randomUUID()
    override fun newClient(): LockClient = LockClient.connect("mem://$store", testOptions)
}

class RedisFencedStoreTest : FencedStoreContract() {
    companion object {
        @JvmField
        @RegisterExtension
        val redis: RedisServerExtension = RedisServerExtension.standalone()
    }

    override fun newClient(): LockClient = LockClient.connect(redis.uri(), testOptions)
}
