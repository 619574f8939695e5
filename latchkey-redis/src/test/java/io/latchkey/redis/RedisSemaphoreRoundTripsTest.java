package io.latchkey.redis;

import static io.latchkey.redis.RedisTestSupport.fastOptions;
import static io.latchkey.redis.RedisTestSupport.uniqueName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.latchkey.DistributedSemaphore;
import io.latchkey.testing.RedisServerExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The Redis semaphore on the engine: an uncontended acquire and release are one script each (the engine's
 * waiting, timeouts and interruption are the TCK's; see {@code RedisSemaphoreTckTest}).
 */
class RedisSemaphoreRoundTripsTest {

    private static final Duration EVENTUALLY = Duration.ofSeconds(20);

    @RegisterExtension
    static RedisServerExtension redis = RedisServerExtension.standalone();

    private RedisLockClient a;
    private RedisLockClient b;
    private final List<Thread> threads = new ArrayList<>();

    @BeforeEach
    void connect() {
        a = RedisLockClient.connect(redis.uri(), fastOptions());
        b = RedisLockClient.connect(redis.uri(), fastOptions());
    }

    @AfterEach
    void close() throws InterruptedException {
        a.close();
        b.close();
        for (Thread t : threads) {
            t.join(10_000);
        }
    }

    @Test
    void anUncontendedAcquireAndReleaseAreOneEvalshaEach() throws Exception {
        DistributedSemaphore semaphore = a.semaphore(uniqueName("sem-rt"));
        assertThat(semaphore.trySetPermits(1)).isTrue();
        semaphore.acquire(); // loads the scripts, so that the counts below do not include the NOSCRIPT fallback
        semaphore.release();

        long before = commandCalls("evalsha");
        semaphore.acquire();
        assertThat(commandCalls("evalsha") - before).as("acquire").isEqualTo(1);
        semaphore.release();
        assertThat(commandCalls("evalsha") - before).as("acquire + release").isEqualTo(2);
    }

    @Test
    void aBusyNameKeepsItsChannelInsteadOfSubscribingAtEveryAcquire() throws Exception {
        DistributedSemaphore semaphore = a.semaphore(uniqueName("sem-sub"));
        assertThat(semaphore.trySetPermits(1)).isTrue();
        long before = commandCalls("subscribe") + commandCalls("unsubscribe");
        for (int i = 0; i < 200; i++) {
            semaphore.acquire();
            semaphore.release();
        }
        long churn = commandCalls("subscribe") + commandCalls("unsubscribe") - before;
        System.out.println("SUBSCRIBE+UNSUBSCRIBE for 200 uncontended acquire/release: " + churn);
        assertThat(churn).as("SUBSCRIBE + UNSUBSCRIBE for 200 uncontended acquire/release").isLessThanOrEqualTo(4);
    }

    private interface Body {
        void run() throws Exception;
    }

    private Thread start(String name, Body body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, name);
        t.setDaemon(true);
        threads.add(t);
        t.start();
        return t;
    }

    private static long publishes() {
        return commandCalls("publish");
    }

    private static long commandCalls(String command) {
        Matcher m = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)")
                .matcher((String) redis.execute("INFO", "commandstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
