package io.latchkey.micronaut;

import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** A @Locked method whose work outlives it: the start-up check rejects it (only in the context that asks for it). */
@Singleton
@Requires(property = "test.async-orders", value = "true")
public class AsyncOrders {

    @Locked(name = "order:{orderId}")
    public CompletionStage<String> ship(long orderId) {
        return CompletableFuture.completedFuture("shipped");
    }
}
