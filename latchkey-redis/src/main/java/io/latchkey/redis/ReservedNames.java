package io.latchkey.redis;

/**
 * Which names Redis refuses because their keys would be keys this backend uses itself. Every key Latchkey derives
 * from a name besides the lock hash ({@code namespace + name}, Redisson's layout) has the marker
 * {@code :latchkey:} right after the part taken from the name ({@link SyncKeys},
 * {@link RedisFencedStoreOps#storePrefix}), and the token key of a namespace is {@code <namespace>latchkey:tokens}
 * ({@link FencingTokens}). So a name is refused if
 * <ul>
 *   <li>its lock key contains {@code :latchkey:} or ends with {@code latchkey:tokens} (it could be another name's
 *   or another namespace's key), or</li>
 *   <li>it names a synchronizer or a fenced store (not a plain or spin lock, whose only key is its hash) and its key
 *   is {@code P{K}} where {@code K} has no {@code '}'} and is {@code P} (brace-free, possibly empty) followed by
 *   more: {@code K} is then the key of another name (in namespace {@code P}, or in a namespace with braces) whose
 *   synchronizer and store keys are {@code P{K}:latchkey:…}, exactly those of this name.</li>
 * </ul>
 * Everything else maps to keys no other name and no bookkeeping of any namespace uses. The check is on strings
 * only and runs before anything is sent.
 */
final class ReservedNames {

    static final String MARKER = ":latchkey:";

    private ReservedNames() {
    }

    /**
     * @param keyed whether the primitive keeps keys besides the lock hash (every primitive but plain and spin locks)
     * @throws IllegalArgumentException if {@code name} is reserved in {@code namespace}, naming the reserved form
     */
    static void check(String namespace, String name, boolean keyed) {
        String key = namespace + name;
        if (key.contains(MARKER) || key.endsWith(FencingTokens.KEY_SUFFIX)) {
            throw new IllegalArgumentException(String.format("name '%s' is reserved on Redis: its key '%s' contains "
                    + "'%s' or ends with '%s', the forms of the keys Latchkey keeps beside the locks (token "
                    + "counters, synchronizer and fenced-store keys)", name, key, MARKER, FencingTokens.KEY_SUFFIX));
        }
        // The synchronizer keys of a key K without '}' are P{K}:latchkey:…, P its namespace if brace-free, else empty
        // (SyncKeys); those of a key with a hash tag are <key>:latchkey:…. They meet when this key is P{K}.
        int open = key.indexOf('{');
        if (keyed && open >= 0 && key.endsWith("}") && key.length() > open + 2) {
            String p = key.substring(0, open);
            String inner = key.substring(open + 1, key.length() - 1);
            if (inner.indexOf('}') < 0 && inner.startsWith(p) && inner.length() > p.length()) {
                throw new IllegalArgumentException(String.format("name '%s' is reserved on Redis: its key '%s' is "
                        + "the hash tag of the key '%s', whose synchronizer and fenced-store keys ('%s:latchkey:…') "
                        + "it would share; drop the braces or add text outside them", name, key, inner, key));
            }
        }
    }
}
