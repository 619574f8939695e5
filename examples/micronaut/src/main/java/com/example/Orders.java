package com.example;

import io.latchkey.micronaut.Locked;
import io.latchkey.micronaut.LockedRun;
import jakarta.inject.Singleton;

/** Shipping an order: one instance at a time per order, across every instance of the application. */
@Singleton
public class Orders {

    /** Ships the order under lock {@code order:<orderId>} and returns the fencing token its write would carry. */
    @Locked(name = "order:{orderId}", waitTime = "5s")
    public long ship(long orderId) {
        long token = LockedRun.currentLease().orElseThrow().fencingToken();
        // a real store would refuse this write if it had already seen a higher token for the order
        return token;
    }
}
