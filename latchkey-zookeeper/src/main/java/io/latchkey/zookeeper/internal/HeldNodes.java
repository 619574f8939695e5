package io.latchkey.zookeeper.internal;

import io.latchkey.core.Grant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The lock nodes this client holds, by full path, with the grant each one backs. One table per client: a reader
 * looks up its own owner's write node ahead of it (the downgrade case), and an expired session is turned into
 * lost grants from here.
 */
public final class HeldNodes {

    private final Map<String, Grant> byPath = new ConcurrentHashMap<>();

    void put(String path, Grant grant) {
        byPath.put(path, grant);
    }

    Grant get(String path) {
        return byPath.get(path);
    }

    boolean remove(String path, Grant grant) {
        return byPath.remove(path, grant);
    }

    List<Grant> grantsOfSession(long sessionId) {
        return byPath.values().stream().filter(g -> g.backendState(ZkGrantState.class).sessionId() == sessionId)
                .toList();
    }

    /** Every grant held now. */
    public List<Grant> all() {
        return new ArrayList<>(byPath.values());
    }
}
