package io.latchkey.bench.redis;

import io.latchkey.bench.Contender;
import io.latchkey.bench.Cycle;
import io.latchkey.bench.LeaseMode;
import io.latchkey.bench.Scenario;
import io.latchkey.testing.RedisServer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Single-thread lock+unlock latency under JMH, for each side of the Redis comparison, against a redis-server the
 * benchmark starts. Useful with {@code -prof gc} to compare allocations per cycle:
 * {@code ./bench.sh jmh RedisLockCycleBenchmark -prof gc}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class RedisLockCycleBenchmark {

    @Param({"latchkey", "redisson", "limit"})
    public String side;

    @Param({"WATCHDOG", "FIXED"})
    public String mode;

    private RedisServer server;
    private Contender contender;
    private Cycle cycle;

    @Setup(Level.Trial)
    public void start() {
        server = RedisServer.standalone().start();
        Duration lease = Duration.ofSeconds(10);
        contender = switch (side) {
            case "latchkey" -> new LatchkeyContender(server.uri(), lease);
            case "redisson" -> new RedissonContender(server.uri(), lease);
            case "limit" -> new EvalShaLimit(server.uri());
            default -> throw new IllegalArgumentException("unknown side " + side);
        };
        cycle = contender.cycles(new Scenario(1, false, LeaseMode.valueOf(mode)), "jmh").forThread(0);
    }

    @Benchmark
    public void lockUnlock() throws Exception {
        cycle.run();
    }

    @TearDown(Level.Trial)
    public void stop() {
        contender.close();
        server.close();
    }
}
