package com.example;

import io.latchkey.spring.Locked;
import io.latchkey.spring.LockedRun;
import io.latchkey.spring.LockedSchedule;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Service;

/** Run with --latchkey.uri=redis://127.0.0.1:6379: locks once per kind, prints, and exits 0. */
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

    @Bean
    ApplicationRunner run(Orders orders) {
        return args -> {
            orders.place(42);
            if (!TICKED.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the @LockedSchedule method never ran");
            }
            System.out.println("Spring Boot " + org.springframework.boot.SpringBootVersion.getVersion());
        };
    }
}
