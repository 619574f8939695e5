package com.example;

import io.latchkey.LockClient;
import io.latchkey.shedlock.LatchkeyLockProvider;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** java ... com.example.ShedLockExample redis://127.0.0.1:6379: one locked tick, then exit 0. */
public class ShedLockExample {
    static final CountDownLatch TICKED = new CountDownLatch(1);
    static String uri;

    public static void main(String[] args) throws InterruptedException {
        uri = args.length > 0 ? args[0] : "redis://127.0.0.1:6379";
        try (var context = new AnnotationConfigApplicationContext(Config.class, Reports.class)) {
            if (!TICKED.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the @SchedulerLock task never ran");
            }
        }
    }

    @Configuration
    @EnableScheduling
    @EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
    static class Config {
        @Bean(destroyMethod = "close")
        LockClient lockClient() {
            return LockClient.connect(uri);
        }

        @Bean
        LockProvider lockProvider(LockClient client) {
            return new LatchkeyLockProvider(client);
        }
    }

    @Component
    static class Reports {
        @Scheduled(fixedDelay = 200)
        @SchedulerLock(name = "example-report", lockAtLeastFor = "PT1S")
        public void report() {
            System.out.println("@SchedulerLock: report on one node, lock taken through LatchkeyLockProvider");
            TICKED.countDown();
        }
    }
}
