package com.example;

import io.latchkey.quarkus.Locked;
import io.latchkey.quarkus.LockedRun;
import jakarta.enterprise.context.ApplicationScoped;

/** Ships an order while holding its lock: one instance at a time per order, across every instance. */
@ApplicationScoped
public class Orders {

    @Locked(name = "order:{orderId}", waitTime = "5s")
    public long ship(long orderId) {
        long token = LockedRun.currentLease().orElseThrow().fencingToken();
        // a real store would refuse this write if it had already seen a larger token for the order
        System.out.printf("shipped order %d under lock order:%d, fencing token %d%n", orderId, orderId, token);
        return token;
    }
}
