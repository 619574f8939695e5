package com.example;

import io.micronaut.context.ApplicationContext;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts a Micronaut application context on the Redis server given as the first argument, ships an order through a
 * {@code @Locked} method, waits for one run of the scheduled report, and stops. With {@code --example.ticks=N} it
 * instead stays for N ticks of the report (N whole seconds from soon after its first work) and prints
 * {@code ticks <first>..<last>: <runs> runs on this instance} before it stops: start it twice at once and each tick
 * runs on one instance only (some instance may run none).
 */
public final class MicronautExample {

    public static void main(String[] args) throws Exception {
        String uri = args.length > 0 && !args[0].startsWith("--") ? args[0] : "redis://127.0.0.1:6379";
        int ticks = 0;
        for (String a : args) {
            if (a.startsWith("--example.ticks=")) {
                ticks = Integer.parseInt(a.substring("--example.ticks=".length()));
            }
        }
        try (ApplicationContext context = ApplicationContext.run(Map.of("latchkey.uri", uri))) {
            Orders orders = context.getBean(Orders.class);
            long first = orders.ship(42);
            long second = orders.ship(42);
            System.out.printf("@Locked order:42 shipped twice, fencing tokens %d < %d%n", first, second);
            if (second <= first) {
                throw new IllegalStateException("fencing tokens did not increase");
            }
            // --example.ticks=N: N ticks from the first one at least 500 ms (the report's lockAtLeastFor) after the
            // client's first work: a run due while it was still connecting may have taken the lock late
            long firstTick = (System.currentTimeMillis() + 500) / 1000 + 1;
            ReportJob job = context.getBean(ReportJob.class);
            if (ticks == 0) { // alone, the report runs here within a second; beside other instances maybe on them only
                if (!job.ran.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the scheduled report did not run");
                }
                System.out.printf("@LockedSchedule report ran with fencing token %d%n", job.token);
            } else { // until the last of those ticks has run
                long lastTick = firstTick + ticks - 1;
                Thread.sleep(Math.max(0, (lastTick + 1) * 1000 + 300 - System.currentTimeMillis()));
                System.out.printf("ticks %d..%d: %d runs on this instance%n", firstTick, lastTick, job.runs.get());
            }
        }
        System.out.println("Micronaut example done");
    }
}
