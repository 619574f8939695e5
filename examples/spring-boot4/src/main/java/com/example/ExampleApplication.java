package com.example;

import io.latchkey.spring.Locked;
import io.latchkey.spring.LockedRun;
import io.latchkey.spring.LockedSchedule;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

/**
 * Run with --latchkey.uri=redis://127.0.0.1:6379: locks once per kind, prints, and exits 0. With --example.ticks=N it
 * also runs a {@code @LockedSchedule} job every second for N seconds, printing {@code tick <second> token <t>} on the
 * node that ran it: start it twice at once and each second runs on one node only.
 */
@SpringBootApplication
@EnableScheduling
public class ExampleApplication {
    static final CountDownLatch TICKED = new CountDownLatch(1);

    public static void main(String[] args) {
        ConfigurableApplicationContext context = SpringApplication.run(ExampleApplication.class, args);
        System.exit(SpringApplication.exit(context));
    }

    @Service
    public static class Orders {
        @Locked(name = "'example-order:' + #order")
        public void place(int order) {
            System.out.println("@Locked: placing order " + order + " with fencing token "
                    + LockedRun.currentLease().map(lease -> String.valueOf(lease.fencingToken())).orElse("(none)"));
        }

        @Scheduled(fixedDelay = 200)
        @LockedSchedule(name = "example-tick")
        public void tick() {
            if (TICKED.getCount() > 0) {
                System.out.println("@LockedSchedule: tick on one node, lock valid " + LockedRun.isLockValid());
                TICKED.countDown();
            }
        }
    }

    /** A job due every second on every node; the node that takes the lock runs it and holds it half a second. */
    @Service
    @ConditionalOnProperty("example.ticks")
    public static class Ticks {
        static final AtomicInteger RUNS = new AtomicInteger();

        @Scheduled(cron = "* * * * * *")
        @LockedSchedule(name = "example-ticks", lockAtLeastFor = "500ms")
        public void tick() {
            long second = (System.currentTimeMillis() + 250) / 1000; // the second this run was due at
            System.out.println("tick " + second + " token " + LockedRun.currentLease().orElseThrow().fencingToken());
            RUNS.incrementAndGet();
        }
    }

    @Bean
    ApplicationRunner run(Orders orders, io.micrometer.core.instrument.MeterRegistry meters, org.springframework.core.env.Environment env) {
        return args -> {
            long first = System.currentTimeMillis() / 1000 + 1; // with --example.ticks=N: this second and N - 1 more
            orders.place(42);
            if (!TICKED.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the @LockedSchedule method never ran");
            }
            meters.getMeters().stream().map(meter -> meter.getId().getName()).filter(name -> name.startsWith("latchkey"))
                    .distinct().sorted().forEach(name -> System.out.println("meter " + name));
            var http = java.net.http.HttpClient.newHttpClient();
            var response = http.send(java.net.http.HttpRequest.newBuilder(java.net.URI.create(
                    "http://127.0.0.1:" + env.getProperty("local.server.port") + "/actuator/latchkey")).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            System.out.println("GET /actuator/latchkey: " + response.statusCode() + " " + response.body());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("actuator endpoint answered " + response.statusCode());
            }
            int ticks = env.getProperty("example.ticks", Integer.class, 0);
            if (ticks > 0) { // until the last of those seconds has run
                long last = first + ticks - 1;
                Thread.sleep(Math.max(0, (last + 1) * 1000 + 300 - System.currentTimeMillis()));
                System.out.println("ticks " + first + ".." + last + ": " + Ticks.RUNS.get() + " runs on this node");
            }
        };
    }
}
