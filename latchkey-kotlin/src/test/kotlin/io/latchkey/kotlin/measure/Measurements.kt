package io.latchkey.kotlin.measure

import io.latchkey.ClientOptions
import io.latchkey.LockClient
import io.latchkey.LockLostException
import io.latchkey.kotlin.acquireSuspending
import io.latchkey.kotlin.holding
import io.latchkey.testing.RedisServer
import java.lang.management.ManagementFactory
import java.nio.file.Files
import java.nio.file.Path
import java.time.Duration
import java.util.UUID
import java.util.concurrent.CountDownLatch
import java.util.concurrent.Executors
import java.util.concurrent.ThreadFactory
import java.util.concurrent.atomic.AtomicInteger
import kotlin.time.Duration.Companion.milliseconds
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

/**
 * Numbers for the module's README, not a test: run one mode per JVM (see latchkey-kotlin/README.md, "Numbers").
 *
 * `footprint <coroutines|platform|virtual> <mem|redis> [waiters]`: heap (and resident memory) per waiter, 10,000
 * waiters on one held lock. `lost <mem|redis>`: time from a lost lease to the cancelled block.
 */
fun main(args: Array<String>) {
    val mode = args.getOrElse(0) { "footprint" }
    val backend = if (mode == "footprint") args.getOrElse(2) { "mem" } else args.getOrElse(1) { "mem" }
    val redis = if (backend == "redis") RedisServer.standalone().start() else null
    try {
        val uri = redis?.uri() ?: "mem://measure-${UUID.randomUUID()}"
        when (mode) {
            "footprint" -> footprint(uri, args.getOrElse(1) { "coroutines" }, args.getOrElse(3) { "10000" }.toInt(), backend)
            "lost" -> lost(uri, backend)
            else -> error("unknown mode $mode")
        }
    } finally {
        redis?.close()
    }
    System.exit(0)
}

private val options = ClientOptions.builder().watchdogTimeout(Duration.ofSeconds(30)).build()

private fun usedHeap(): Long {
    val memory = ManagementFactory.getMemoryMXBean()
    repeat(4) { System.gc(); Thread.sleep(100) }
    return memory.heapMemoryUsage.used
}

private fun rssKb(): Long = Files.readAllLines(Path.of("/proc/self/status"))
    .first { it.startsWith("VmRSS:") }.split(Regex("\\s+"))[1].toLong()

private fun footprint(uri: String, kind: String, waiters: Int, backend: String) {
    LockClient.connect(uri, options).use { client ->
        val name = "footprint"
        val holder = client.lock(name).acquire()
        // warm the paths once: one waiter of this kind that gets the lock after a short hold
        val heapBefore = usedHeap()
        val rssBefore = rssKb()
        val started = AtomicInteger()
        val done = CountDownLatch(waiters)
        var cleanup: () -> Unit = {}
        when (kind) {
            "coroutines" -> {
                val executor = Executors.newSingleThreadExecutor { Thread(it, "footprint-dispatcher") }
                val dispatcher = executor.asCoroutineDispatcher()
                Thread({
                    runBlocking(dispatcher) {
                        repeat(waiters) {
                            launch {
                                started.incrementAndGet()
                                client.lock(name).acquireSuspending().close()
                                done.countDown()
                            }
                        }
                    }
                }, "footprint-runner").start()
                cleanup = { executor.shutdownNow() }
            }
            "platform", "virtual" -> {
                val factory: ThreadFactory = if (kind == "platform") ThreadFactory { Thread(it) } else virtualThreads()
                repeat(waiters) {
                    factory.newThread {
                        started.incrementAndGet()
                        client.lock(name).acquire().close()
                        done.countDown()
                    }.start()
                }
            }
            else -> error("unknown kind $kind")
        }
        while (started.get() < waiters) Thread.sleep(50)
        Thread.sleep(2000) // every waiter has reached its wait
        val heapAfter = usedHeap()
        val rssAfter = rssKb()
        val perWaiter = (heapAfter - heapBefore).toDouble() / waiters
        println(String.format(
            "footprint %s %s: %d waiters, heap +%.1f MB (%.0f bytes each, %.0f waiters per MB), resident +%.1f MB (%.0f waiters per MB)",
            backend, kind, waiters, (heapAfter - heapBefore) / 1048576.0, perWaiter, 1048576.0 / perWaiter,
            (rssAfter - rssBefore) / 1024.0, waiters * 1024.0 / (rssAfter - rssBefore)))
        val began = System.nanoTime()
        holder.release()
        done.await()
        println(String.format("footprint %s %s: all %d waiters got the lock in turn in %d ms", backend, kind, waiters,
            (System.nanoTime() - began) / 1_000_000))
        cleanup()
    }
}

private fun virtualThreads(): ThreadFactory {
    val builder = Thread::class.java.getMethod("ofVirtual").invoke(null)
    val type = Class.forName("java.lang.Thread\$Builder")
    return type.getMethod("factory").invoke(builder) as ThreadFactory
}

/** Lost lease → cancelled block: a fixed 300 ms lease that runs out (mem), or a force-unlocked watchdog lease. */
private fun lost(uri: String, backend: String) {
    val fast = ClientOptions.builder().watchdogTimeout(Duration.ofMillis(1500)).build()
    LockClient.connect(uri, fast).use { client ->
        LockClient.connect(uri, fast).use { admin ->
            for (kind in listOf("fixed-lease", "force-unlock")) {
                val signalToCancel = mutableListOf<Long>()
                val causeToCancel = mutableListOf<Long>()
                repeat(21) { round ->
                    val name = "lost-$kind-$round"
                    val lostAt = AtomicLongBox()
                    val cancelledAt = CompletableDeferred<Long>()
                    var cause = 0L
                    runBlocking(Dispatchers.Default) {
                        // the loss listener is registered before holding() registers its own, so it runs first:
                        // loss signal -> cancelled is what the coroutine layer adds
                        val lease = client.lock(name).acquireSuspending(if (kind == "fixed-lease") 300.milliseconds else null)
                        val granted = System.nanoTime()
                        lease.onLost { lostAt.value = System.nanoTime() }
                        try {
                            lease.holding {
                                cause = if (kind == "fixed-lease") {
                                    granted + 300_000_000L
                                } else {
                                    withContext(Dispatchers.IO) { admin.lock(name).forceUnlock() }
                                    System.nanoTime()
                                }
                                try {
                                    awaitCancellation()
                                } catch (e: CancellationException) {
                                    cancelledAt.complete(System.nanoTime())
                                    throw e
                                }
                            }
                        } catch (e: LockLostException) {
                            // expected
                        }
                    }
                    if (round > 0) { // the first round warms up
                        val c = cancelledAt.getCompleted()
                        signalToCancel += (c - lostAt.value) / 1000
                        causeToCancel += (c - cause) / 1000
                    }
                }
                signalToCancel.sort(); causeToCancel.sort()
                println(String.format(
                    "lost %s %s (20 rounds): loss signal -> block cancelled: median %d µs, max %d µs; %s -> block cancelled: median %.1f ms, max %.1f ms",
                    backend, kind, signalToCancel[10], signalToCancel.last(),
                    if (kind == "fixed-lease") "lease end (300 ms after the grant arrived)" else "force-unlock",
                    causeToCancel[10] / 1000.0, causeToCancel.last() / 1000.0))
            }
        }
    }
}

private class AtomicLongBox {
    @Volatile
    var value: Long = 0
}
