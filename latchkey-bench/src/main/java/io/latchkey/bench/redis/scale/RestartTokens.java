package io.latchkey.bench.redis.scale;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Part 4: {@code names} names locked once each, the server restarted empty (no persistence), the same names locked
 * again: how many names got a token after the restart that is not greater than their token before it.
 */
final class RestartTokens {

    record Result(String side, int names, int notGreater, double recoverySeconds) {
    }

    private RestartTokens() {
    }

    static Result run(ScaleServer server, ScaleSide side, int names, int threads) throws InterruptedException {
        long[] before = lockAll(side, names, threads);
        server.restartEmpty();
        long restarted = System.nanoTime();
        awaitWorking(side);
        double recovery = (System.nanoTime() - restarted) / 1e9;
        long[] after = lockAll(side, names, threads);
        int notGreater = 0;
        for (int i = 0; i < names; i++) {
            if (after[i] <= before[i]) {
                notGreater++;
            }
        }
        return new Result(side.label, names, notGreater, recovery);
    }

    private static long[] lockAll(ScaleSide side, int names, int threads) throws InterruptedException {
        long[] tokens = new long[names];
        AtomicInteger next = new AtomicInteger();
        Parallel.run("scale-restart", threads, thread -> {
            for (int i = next.getAndIncrement(); i < names; i = next.getAndIncrement()) {
                tokens[i] = retrying(side, thread, "restart:" + i);
            }
        });
        return tokens;
    }

    /** Retries a probe until the side's first client reconnected. */
    private static void awaitWorking(ScaleSide side) {
        retrying(side, 0, "restart-probe");
    }

    /** Locks and unlocks, retrying for up to a minute while the client reconnects. */
    private static long retrying(ScaleSide side, int client, String name) {
        long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
        while (true) {
            try {
                return side.lockUnlock(client, name);
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                try {
                    Thread.sleep(100);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted", interrupted);
                }
            }
        }
    }
}
