package io.latchkey.kotlin

import io.latchkey.ClientOptions
import io.latchkey.LockClient
import io.latchkey.testing.RedisServerExtension
import io.latchkey.zookeeper.embedded.EmbeddedZooKeeper
import java.time.Duration
import java.util.UUID
import org.junit.jupiter.api.extension.RegisterExtension

/** Short watchdog (renewal every 0.5 s) so that a loss is noticed within a test. */
internal val testOptions: ClientOptions = ClientOptions.builder()
    .watchdogTimeout(Duration.ofMillis(1500))
    .operationTimeout(Duration.ofSeconds(5))
    .build()

/** One embedded ZooKeeper for the test JVM, short ticks; started on first use. */
internal object SharedZooKeeper {
    val server: EmbeddedZooKeeper by lazy {
        EmbeddedZooKeeper.builder().tickTime(Duration.ofMillis(200)).start().also { s ->
            Runtime.getRuntime().addShutdownHook(Thread(s::close, "embedded-zookeeper-stop"))
        }
    }
}

class MemCoroutineContractTest : CoroutineContract() {
    private val store = "kotlin-" + UUID.randomUUID()
    override fun newClient(): LockClient = LockClient.connect("mem://$store", testOptions)
}

class RedisCoroutineContractTest : CoroutineContract() {
    companion object {
        @JvmField
        @RegisterExtension
        val redis: RedisServerExtension = RedisServerExtension.standalone()
    }

    override fun newClient(): LockClient = LockClient.connect(redis.uri(), testOptions)
}

class ZooKeeperCoroutineContractTest : CoroutineContract() {
    override fun newClient(): LockClient = LockClient.connect(SharedZooKeeper.server.uri(), testOptions)
}

class H2CoroutineContractTest : CoroutineContract() {
    private val database = "jdbc:h2:mem:kotlin-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1"
    override fun newClient(): LockClient = LockClient.connect(database, testOptions)
}
