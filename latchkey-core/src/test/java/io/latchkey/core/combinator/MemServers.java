package io.latchkey.core.combinator;

import io.latchkey.ClientOptions;
import io.latchkey.DistributedLock;
import io.latchkey.LockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Independent in-memory "servers" for combinator tests: each server is its own {@code mem://} store, so a lock
 * on one server knows nothing of the others. Every client is closed by {@link #close()}.
 */
final class MemServers implements AutoCloseable {

    static final Duration WATCHDOG = Duration.ofMillis(600);

    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private final List<LockClient> clients = new CopyOnWriteArrayList<>();

    /** The URI of server {@code i}. */
    String uri(int server) {
        return "mem://combinator-" + run + "-" + server;
    }

    /** A new client (its own owner identity) of server {@code i}, with a short watchdog. */
    LockClient client(int server) {
        LockClient client = LockClient.connect(uri(server), ClientOptions.builder()
                .watchdogTimeout(WATCHDOG)
                .operationTimeout(Duration.ofSeconds(2))
                .build());
        clients.add(client);
        return client;
    }

    /** One new client per server, {@code 0 … n-1}. */
    List<LockClient> clients(int n) {
        List<LockClient> result = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            result.add(client(i));
        }
        return result;
    }

    /** The lock {@code name} from each client. */
    static List<DistributedLock> locks(List<LockClient> clients, String name) {
        List<DistributedLock> result = new ArrayList<>(clients.size());
        for (LockClient c : clients) {
            result.add(c.lock(name));
        }
        return result;
    }

    @Override
    public void close() {
        for (LockClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException ignored) {
                // closing is best effort in tests
            }
        }
    }
}
