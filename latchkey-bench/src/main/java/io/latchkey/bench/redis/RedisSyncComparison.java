package io.latchkey.bench.redis;

import io.latchkey.bench.BenchOptions;
import io.latchkey.bench.ComparisonSuite;
import io.latchkey.bench.LeaseMode;
import io.latchkey.bench.Primitive;
import io.latchkey.bench.Scenario;
import io.latchkey.bench.SideBySide;
import java.util.List;

/**
 * Latchkey's Redis synchronizers against Redisson's on one {@code redis-server} ({@code --suites redis-sync}): read
 * and write locks, the fair lock under contention, the counting and the permit-expirable semaphore, the count-down
 * latch; the raw-client limit runs next to the uncontended rows. The plain lock's rows are the {@code redis} suite's.
 */
public final class RedisSyncComparison implements ComparisonSuite {

    /** The target: every row at least 2× Redisson. */
    static final SideBySide.Targets TARGETS = new SideBySide.Targets(2, 0, 2);

    @Override
    public String name() {
        return "redis-sync";
    }

    static List<Scenario> scenarios(int threads) {
        return List.of(
                new Scenario(Primitive.READ_LOCK, threads, false, LeaseMode.WATCHDOG),
                new Scenario(Primitive.READ_LOCK, threads, true, LeaseMode.WATCHDOG),
                new Scenario(Primitive.WRITE_LOCK, threads, false, LeaseMode.WATCHDOG),
                new Scenario(Primitive.WRITE_LOCK, threads, true, LeaseMode.WATCHDOG),
                new Scenario(Primitive.FAIR_LOCK, threads, true, LeaseMode.WATCHDOG),
                new Scenario(Primitive.SEMAPHORE, threads, false, LeaseMode.NONE),
                new Scenario(Primitive.SEMAPHORE, threads, true, LeaseMode.NONE),
                new Scenario(Primitive.PERMIT_SEMAPHORE, threads, false, LeaseMode.FIXED),
                new Scenario(Primitive.COUNT_DOWN_LATCH, threads, false, LeaseMode.NONE));
    }

    /**
     * The permits a row's semaphore starts with: one per thread's own semaphore; a shared one has a quarter as many
     * as there are threads, so that most acquires wait for a release.
     */
    static int permits(Scenario scenario) {
        return scenario.contended() ? Math.max(1, scenario.threads() / 4) : 1;
    }

    @Override
    public SideBySide.Report run(BenchOptions options) throws Exception {
        String notes = String.format("Rows: each thread runs one cycle after another; a **read lock** cycle is "
                + "`readWriteLock(name).readLock()` `lock()` + `unlock()` (on one name all readers hold it at once: "
                + "shared, not contended), a **write lock** cycle the same on `writeLock()`, a **fair lock** cycle "
                + "`fairLock(name)` `lock()` + `unlock()` (Redisson: `getReadWriteLock`, `getFairLock`); a "
                + "**semaphore** cycle `acquire()` + `release()` of one permit (one semaphore of 1 permit per thread, "
                + "or one of %d permits shared by all threads); a **permit-expirable semaphore** cycle "
                + "`release(acquire(%s s lease))` on one semaphore of 1 permit per thread; a **count-down latch** "
                + "cycle `trySetCount(1)` + `countDown()` + `await()`. The **limit** (two raw `EVALSHA` round trips per "
                + "cycle) bounds every uncontended row that costs two round trips (all but the latch, which costs "
                + "three on both sides). Targets: ≥ 2× Redisson on every row.%n", permits(new Scenario(Primitive.SEMAPHORE, options.threads(), true, LeaseMode.NONE)),
                options.lease().toSeconds());
        return RedisComparison.run(options, new RedisComparison.Rows("Redis synchronizers: Latchkey vs Redisson",
                "cycles", scenarios(options.threads()), TARGETS, true, notes));
    }
}
