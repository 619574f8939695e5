package io.latchkey.bench.redis.scale;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part 1: {@code names} distinct names, each locked and released once by parallel clients; what stays on the
 * server afterwards (keys of the run, {@code INFO memory}).
 */
final class DistinctNames {

    record Result(String side, int names, double seconds, ScaleServer.Keys residualKeys, long memoryGrowthBytes) {
        double namesPerSecond() {
            return names / seconds;
        }
    }

    private DistinctNames() {
    }

    static Result run(ScaleServer server, ScaleSide side, int names, int threads) throws InterruptedException {
        long memoryBefore = server.usedMemory();
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        Parallel.run("scale-names", threads, thread -> {
            for (int i = next.getAndIncrement(); i < names; i = next.getAndIncrement()) {
                side.lockUnlock(thread, "order:" + i);
            }
        });
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result(side.label, names, seconds, server.countKeys(side.prefix),
                server.usedMemory() - memoryBefore);
    }
}
