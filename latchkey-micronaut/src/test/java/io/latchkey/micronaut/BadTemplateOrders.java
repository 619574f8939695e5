package io.latchkey.micronaut;

import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/** A @Locked name that names no parameter: the start-up check rejects it (only in the context that asks for it). */
@Singleton
@Requires(property = "test.bad-template", value = "true")
public class BadTemplateOrders {

    @Locked(name = "order:{id}")
    public void ship(long orderId) {
    }
}
