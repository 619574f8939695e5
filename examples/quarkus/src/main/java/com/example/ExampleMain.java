package com.example;

import io.latchkey.LockClient;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import io.quarkus.scheduler.Scheduler;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;

/**
 * Starts Quarkus, does its work, waits for one run of the scheduled report and returns: the application then stops,
 * its client releasing what it holds. With {@code --example.ticks=N} it instead stays for N ticks of the report (N
 * whole seconds from soon after its first work) and prints {@code ticks <first>..<last>: <runs> runs on this
 * instance} before it stops: start it twice at once and each tick runs on one instance only (some instance may run
 * none).
 */
@QuarkusMain
public class ExampleMain {

    public static void main(String... args) {
        Quarkus.run(Work.class, args);
    }

    /** The work, with the application's beans. */
    public static class Work implements QuarkusApplication {

        @Inject
        Orders orders;

        @Inject
        ReportJob report;

        @Inject
        Scheduler scheduler;

        @Inject
        LockClient client;

        @Override
        public int run(String... args) throws Exception {
            System.out.println("latchkey client " + client.clientId());
            long first = orders.ship(42);
            long second = orders.ship(42);
            if (second <= first) {
                System.out.println("fencing tokens did not increase");
                return 1;
            }
            scheduler.resume(); // halted until now (application.properties): the report's runs start on a warm client
            // --example.ticks=N: N ticks from the first one at least 500 ms (the report's lockAtLeastFor) from now
            long firstTick = (System.currentTimeMillis() + 500) / 1000 + 1;
            int ticks = ticks(args);
            // alone, the report runs here within a second; beside other instances it may run on them only
            if (ticks == 0 && !report.ran().await(15, TimeUnit.SECONDS)) {
                System.out.println("the scheduled report did not run");
                return 1;
            }
            if (ticks > 0) { // until the last of those ticks has run
                long lastTick = firstTick + ticks - 1;
                Thread.sleep(Math.max(0, (lastTick + 1) * 1000 + 300 - System.currentTimeMillis()));
                System.out.printf("ticks %d..%d: %d runs on this instance%n", firstTick, lastTick, report.runs());
            }
            System.out.println("done");
            return 0;
        }

        private static int ticks(String... args) {
            for (String a : args) {
                if (a.startsWith("--example.ticks=")) {
                    return Integer.parseInt(a.substring("--example.ticks=".length()));
                }
            }
            return 0;
        }
    }
}
