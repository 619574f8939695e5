package io.latchkey.spring;

import io.latchkey.LockClient;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.lang.Nullable;

/**
 * Actuator endpoint {@code latchkey}: the client's id and capabilities, and the locks held now in its namespace
 * (by any client, not only this one) as {@link LockInspector#list} sees them, optionally filtered by a glob
 * {@code pattern} ({@code /actuator/latchkey?pattern=order:*}). Reading never changes lock state. A backend that
 * cannot list says so in {@code inspect} instead of failing.
 */
@Endpoint(id = "latchkey")
public class LatchkeyEndpoint {

    private final LockClient client;

    /**
     * Creates the endpoint of {@code client}.
     *
     * @param client the client whose id, capabilities and namespace's locks the endpoint shows
     * @throws NullPointerException if {@code client} is null
     */
    public LatchkeyEndpoint(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Reads the client's id and capabilities and, if the backend can list them, the locks held now.
     *
     * @param pattern a glob over lock names as {@link LockInspector#list} defines it; {@code null} or empty for
     *        every held lock
     * @return a JSON-ready map: {@code clientId}, {@code capabilities} (sorted names), {@code inspect}
     *         ({@code "supported"} or why not) and, when supported, {@code locks}: one map of plain values per
     *         {@link LockInfo}
     * @throws io.latchkey.LockUnavailableException if the backend cannot be reached within the operation timeout
     */
    @ReadOperation
    public Map<String, Object> locks(@Nullable String pattern) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("clientId", client.clientId());
        body.put("capabilities", new TreeSet<>(client.capabilities().stream().map(Enum::name)
                .collect(Collectors.toList())));
        if (client instanceof LockInspector) {
            List<LockInfo> held = ((LockInspector) client).list(pattern == null || pattern.isEmpty() ? "*" : pattern);
            body.put("inspect", "supported");
            body.put("locks", held.stream().map(LatchkeyEndpoint::describe).collect(Collectors.toList()));
        } else {
            body.put("inspect", "not supported by " + client.getClass().getSimpleName());
        }
        return body;
    }

    /** Plain values only, so that any JSON mapper renders it without Optional support. */
    private static Map<String, Object> describe(LockInfo info) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("name", info.name());
        row.put("kind", info.kind());
        row.put("owner", info.owner());
        row.put("clientName", info.clientName());
        row.put("heldSince", info.heldSince().map(Object::toString).orElse(null));
        row.put("holdCount", info.holdCount());
        row.put("fencingToken", info.fencingToken().isPresent() ? info.fencingToken().getAsLong() : null);
        row.put("remainingLeaseMillis", info.remainingLease().map(d -> d.toMillis()).orElse(null));
        row.put("waiters", info.waiters().isPresent() ? info.waiters().getAsInt() : null);
        row.put("detail", info.detail());
        return row;
    }
}
