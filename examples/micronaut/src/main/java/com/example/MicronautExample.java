package com.example;

import io.micronaut.context.ApplicationContext;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts a Micronaut application context on the Redis server given as the first argument, ships an order through a
 * {@code @Locked} method, waits for one run of the scheduled report, and stops.
 */
public final class MicronautExample {

    public static void main(String[] args) throws Exception {
        String uri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
        try (ApplicationContext context = ApplicationContext.run(Map.of("latchkey.uri", uri))) {
            Orders orders = context.getBean(Orders.class);
            long first = orders.ship(42);
            long second = orders.ship(42);
            System.out.printf("@Locked order:42 shipped twice, fencing tokens %d < %d%n", first, second);
            if (second <= first) {
                throw new IllegalStateException("fencing tokens did not increase");
            }
            ReportJob job = context.getBean(ReportJob.class);
            if (!job.ran.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the scheduled report did not run");
            }
            System.out.printf("@LockedSchedule report ran with fencing token %d%n", job.token);
        }
        System.out.println("Micronaut example done");
    }
}
