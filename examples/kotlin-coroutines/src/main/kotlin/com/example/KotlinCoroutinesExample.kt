package com.example

import io.ktor.http.HttpStatusCode
import io.ktor.server.cio.CIO
import io.ktor.server.engine.embeddedServer
import io.ktor.server.response.respondText
import io.ktor.server.routing.post
import io.ktor.server.routing.routing
import io.latchkey.FencedStore
import io.latchkey.LockClient
import io.latchkey.LockLostException
import io.latchkey.StaleLeaseException
import io.latchkey.kotlin.getStringSuspending
import io.latchkey.kotlin.putStringSuspending
import io.latchkey.kotlin.putSuspending
import io.latchkey.kotlin.whileLeader
import io.latchkey.kotlin.withLock
import java.net.URI
import java.net.http.HttpClient
import java.net.http.HttpRequest
import java.net.http.HttpResponse
import java.time.Instant
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.future.await
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking

private const val ELECTION = "example:reports"

/**
 * A Ktor server whose handlers suspend on Latchkey, never blocking a thread of the CIO engine:
 *  - `POST /orders/{id}/reserve` takes the lock `order:{id}` with `withLock` and decrements the order's stock in the
 *    lock's fenced store; a request that lost the lock meanwhile is cancelled, or its write refused;
 *  - a leader-only job (`whileLeader`) writes a heartbeat to the election's fenced store, fenced by its leadership.
 *
 * `KotlinCoroutinesExample redis://127.0.0.1:6379 [port]` serves until stopped (port 8080 by default);
 * `KotlinCoroutinesExample redis://127.0.0.1:6379 --once` serves on a free port, sends itself one request, waits for
 * the leader's first heartbeat, prints and exits.
 */
fun main(args: Array<String>) = runBlocking {
    require(args.isNotEmpty()) { "usage: KotlinCoroutinesExample <redis-uri> [port | --once]" }
    val once = args.getOrNull(1) == "--once"
    val port = if (once) 0 else args.getOrNull(1)?.toInt() ?: 8080

    LockClient.connect(args[0]).use { client ->
        val server = embeddedServer(CIO, host = "127.0.0.1", port = port) {
            routing {
                post("/orders/{id}/reserve") {
                    val id = call.parameters["id"]!!
                    val lockName = "example:order:$id"
                    val store = client.fencedStore(lockName)
                    try {
                        val reply = client.lock(lockName).withLock { lease ->
                            val stock = store.getStringSuspending("stock")?.toInt() ?: 100
                            // refused with StaleLeaseException if this lease is no longer the lock's hold
                            store.putStringSuspending(lease, "stock", (stock - 1).toString())
                            "order $id reserved: stock $stock -> ${stock - 1}, fencing token ${lease.fencingToken()}"
                        }
                        call.respondText(reply)
                    } catch (e: LockLostException) {
                        call.respondText("lock lost, nothing reserved: ${e.message}", status = HttpStatusCode.Conflict)
                    } catch (e: StaleLeaseException) {
                        call.respondText("stale lease, nothing written: ${e.message}", status = HttpStatusCode.Conflict)
                    }
                }
            }
        }
        server.startSuspend(wait = false)
        val actualPort = server.engine.resolvedConnectors().first().port
        println("serving on http://127.0.0.1:$actualPort (Ktor CIO), locks on ${args[0]}")

        val firstHeartbeat = CompletableDeferred<String>()
        val leaderJob = launch {
            val store = client.fencedStore(FencedStore.electionLockName(ELECTION))
            while (isActive) {
                try {
                    // cancelled, with LockLostException, if the leadership is lost
                    client.leaderElection(ELECTION).whileLeader { leadership ->
                        while (true) {
                            val beat = "term ${leadership.term()} at ${Instant.now()}"
                            store.putSuspending(leadership, "heartbeat", beat.toByteArray())
                            firstHeartbeat.complete(beat)
                            delay(10.seconds)
                        }
                    }
                } catch (e: LockLostException) {
                    println("leadership lost, campaigning again: ${e.message}")
                }
            }
        }

        if (!once) awaitCancellation() // serves until the JVM is stopped (Ctrl-C)

        val http = HttpClient.newHttpClient()
        val request = HttpRequest.newBuilder(URI("http://127.0.0.1:$actualPort/orders/42/reserve"))
            .POST(HttpRequest.BodyPublishers.noBody()).build()
        val response = http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).await()
        println("POST /orders/42/reserve -> ${response.statusCode()}: ${response.body()}")
        println("leader heartbeat written: ${firstHeartbeat.await()}")
        leaderJob.cancelAndJoin()
        server.stopSuspend(gracePeriodMillis = 0, timeoutMillis = 1000)
        check(response.statusCode() == 200) { "the request failed" }
        println("done")
    }
}
