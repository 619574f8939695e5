package io.latchkey.micronaut;

import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** A wait time without a unit: the start-up check rejects it (only in the context that asks for it). */
@Singleton
@Requires(property = "test.bad-duration", value = "true")
public class BadDurationOrders {

    @Locked(name = "order:{orderId}", waitTime = "5")
    public void ship(long orderId) {
    }
}
