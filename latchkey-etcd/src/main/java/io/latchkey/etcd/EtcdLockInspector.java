package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.LockUnavailableException;
import io.latchkey.etcd.internal.EtcdKeys;
import io.latchkey.etcd.internal.EtcdSession;
import io.latchkey.spi.LockInfo;
import io.latchkey.spi.LockInspector;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletionException;

/**
 * Lists the held locks of one client's namespace for {@code latchkey inspect} and for leader elections'
 * {@code currentLeader()}, in one range read: every owner key under {@code …/locks/<escaped literal start of the
 * pattern>}, sorted by create revision; per lock the first key holds and the others wait.
 *
 * <p>Fields, as etcd knows them: {@code owner} is the key's value (the owner id Latchkey writes); {@code holdCount}
 * is 1 (reentrancy is counted by the holder's client); {@code waiters} is the number of other keys of the lock;
 * {@code fencingToken} and {@code remainingLease} are empty — the token is the revision at which the holder first
 * saw itself lowest, which the keys do not record, and a key's lease TTL would cost a round trip per lease.
 */
final class EtcdLockInspector {

    private final EtcdSession session;
    private final String locksRoot;

    /** @param locksRoot the key prefix of every lock, ending in {@code locks/} */
    EtcdLockInspector(EtcdSession session, String locksRoot) {
        this.session = session;
        this.locksRoot = locksRoot;
    }

    List<LockInfo> list(String pattern) {
        String range = locksRoot + EtcdKeys.escape(literalStart(pattern));
        List<KeyValue> kvs;
        try {
            kvs = session.bounded(session.client().getKVClient().get(bytes(range), GetOption.builder()
                            .isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                            .withSortOrder(GetOption.SortOrder.ASCEND).build()), "list " + range)
                    .join().getKvs();
        } catch (CompletionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof LockUnavailableException u) {
                throw u;
            }
            throw new LockUnavailableException("etcd list " + range + " failed: " + cause, cause);
        }
        Map<String, List<KeyValue>> byName = new LinkedHashMap<>();
        for (KeyValue kv : kvs) {
            String key = kv.getKey().toString(StandardCharsets.UTF_8);
            int end = key.indexOf('/', locksRoot.length());
            if (end < 0) {
                continue;
            }
            String name = unescape(key.substring(locksRoot.length(), end));
            if (LockInspector.matches(pattern, name)) {
                byName.computeIfAbsent(name, k -> new ArrayList<>()).add(kv);
            }
        }
        List<LockInfo> result = new ArrayList<>(byName.size());
        for (Map.Entry<String, List<KeyValue>> e : byName.entrySet()) {
            KeyValue holder = e.getValue().get(0);
            String owner = holder.getValue().toString(StandardCharsets.UTF_8);
            result.add(new LockInfo(e.getKey(), owner.isEmpty() ? "lease " + Long.toHexString(holder.getLease())
                    : owner, 1, OptionalLong.empty(), Optional.empty(), OptionalInt.of(e.getValue().size() - 1)));
        }
        result.sort((a, b) -> a.name().compareTo(b.name()));
        return result;
    }

    /** The pattern up to its first wildcard: every matching name starts with it. */
    static String literalStart(String pattern) {
        if (pattern == null) {
            return "";
        }
        int end = 0;
        while (end < pattern.length() && pattern.charAt(end) != '*' && pattern.charAt(end) != '?') {
            end++;
        }
        return pattern.substring(0, end);
    }

    /** The inverse of {@link EtcdKeys#escape}. */
    static String unescape(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        StringBuilder b = new StringBuilder(segment.length());
        for (int i = 0; i < segment.length(); i++) {
            if (segment.startsWith("%25", i)) {
                b.append('%');
                i += 2;
            } else if (segment.startsWith("%2F", i)) {
                b.append('/');
                i += 2;
            } else {
                b.append(segment.charAt(i));
            }
        }
        return b.toString();
    }

    private static ByteSequence bytes(String s) {
        return ByteSequence.from(s, StandardCharsets.UTF_8);
    }
}
