package io.latchkey.zookeeper.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The remote half of the ZooKeeper semaphore, on the {@link ZkPermitNodeOps} layout
 * ({@code /latchkey[/<ns>]/semaphores/<escaped name>}). Unlike other backends, a permit taken here is a node of this
 * client's session (a crashed client's permits return when its session expires), so {@link #give} first deletes
 * nodes this client took for the name (the most recent first), and adds to the count only for permits beyond those,
 * as {@link java.util.concurrent.Semaphore#release(int)} would. Deletes are retried until they reach the server
 * ({@link NodeDeletes}); the caller hears of a failure within the operation timeout.
 */
public final class ZkSemaphoreOps extends ZkPermitNodeOps {

    /** This client's permit nodes by semaphore path (full node paths); changed only inside the map's compute. */
    private final Map<String, ArrayDeque<String>> mine = new ConcurrentHashMap<>();

    public ZkSemaphoreOps(ZkSession session, ZkWatches watches, Function<String, String> pathOf) {
        super(session, watches, pathOf);
    }

    @Override
    public CompletableFuture<Boolean> tryTake(String name, int permits) {
        String path = pathOf.apply(name);
        return attempt(path, UUID.randomUUID().toString(), permits, new byte[0], "take permits of semaphore " + name)
                .thenApply(taken -> {
                    if (taken == null) {
                        return false;
                    }
                    mine.compute(path, (p, nodes) -> {
                        ArrayDeque<String> d = nodes != null ? nodes : new ArrayDeque<>();
                        for (int i = 0; i < taken.names().size(); i++) {
                            d.addLast(taken.node(i));
                        }
                        return d;
                    });
                    return true;
                });
    }

    /** Deletes up to {@code permits} of our nodes, then adds permits for the rest (see the class comment). */
    @Override
    public CompletableFuture<Void> give(String name, int permits) {
        String path = pathOf.apply(name);
        List<String> nodes = new ArrayList<>();
        mine.computeIfPresent(path, (p, d) -> {
            while (nodes.size() < permits && !d.isEmpty()) {
                nodes.add(d.pollLast());
            }
            return d.isEmpty() ? null : d;
        });
        int extra = permits - nodes.size();
        if (nodes.isEmpty()) {
            return addPermits(name, extra);
        }
        List<CompletableFuture<Boolean>> deleted = nodes.stream()
                .map(n -> deleteNode(n, 0, "release a permit of semaphore " + name)).toList();
        return CompletableFuture.allOf(deleted.toArray(new CompletableFuture<?>[0]))
                .thenCompose(v -> extra > 0 ? addPermits(name, extra) : CompletableFuture.<Void>completedFuture(null));
    }

    /** Takes the permits free now as this client's nodes; a few tries when others take some meanwhile. */
    @Override
    public CompletableFuture<Integer> drainPermits(String name) {
        return drain(name, 3);
    }

    private CompletableFuture<Integer> drain(String name, int tries) {
        return availablePermits(name).thenCompose(free -> free <= 0 || tries == 0
                ? CompletableFuture.completedFuture(0)
                : tryTake(name, free).thenCompose(ok -> ok ? CompletableFuture.completedFuture(free)
                        : drain(name, tries - 1)));
    }
}
