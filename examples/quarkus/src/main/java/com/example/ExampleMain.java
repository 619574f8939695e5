package com.example;

import io.latchkey.LockClient;
import io.quarkus.runtime.Quarkus;
import io.quarkus.runtime.QuarkusApplication;
import io.quarkus.runtime.annotations.QuarkusMain;
import jakarta.inject.Inject;
import java.util.concurrent.TimeUnit;

/** Starts Quarkus, does its work and returns: the application then stops, its client releasing what it holds. */
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
            if (!report.ran().await(15, TimeUnit.SECONDS)) {
                System.out.println("the scheduled report did not run");
                return 1;
            }
            System.out.println("done");
            return 0;
        }
    }
}
