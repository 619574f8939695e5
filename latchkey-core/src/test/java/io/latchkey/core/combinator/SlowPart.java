package io.latchkey.core.combinator;

import io.latchkey.DistributedLock;
import io.latchkey.LockLease;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A real lock whose asynchronous acquires reach the server only after a delay, as over a congested network: the
 * acquire happens for real, but late. Records the leases it handed out so that a test can check their fate.
 */
final class SlowPart {

    final DistributedLock lock;
    final List<LockLease> leases = new CopyOnWriteArrayList<>();

    SlowPart(DistributedLock real, Duration delay) {
        this.lock = (DistributedLock) Proxy.newProxyInstance(DistributedLock.class.getClassLoader(),
                new Class<?>[] {DistributedLock.class}, (proxy, method, args) -> {
                    if (method.getName().equals("tryAcquireAsync")) {
                        CompletableFuture<Optional<LockLease>> late = new CompletableFuture<>();
                        CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS).execute(() ->
                                real.tryAcquireAsync((Duration) args[0], (Duration) args[1]).whenComplete((l, e) -> {
                                    if (e != null) {
                                        late.completeExceptionally(e);
                                    } else {
                                        l.ifPresent(leases::add);
                                        late.complete(l);
                                    }
                                }));
                        return late;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
