package io.latchkey.spi;

import io.latchkey.Capability;
import io.latchkey.LockClient;
import java.util.List;

/**
 * Optional interface of a {@link LockClient} whose backend can list the locks held in it, for administration tools
 * such as {@code latchkey inspect}. A client that implements it also lists {@link Capability#INSPECT} in its
 * capabilities; tools test {@code client instanceof LockInspector} and report "not supported" otherwise.
 *
 * <p>Listing is a snapshot taken with as few remote reads as the backend allows; it is not atomic across locks,
 * and by the time it returns a lock may have been released or taken by someone else. It never changes lock state.
 * Only locks of this client's namespace are listed, by the names clients gave them (not the backend's keys).
 */
public interface LockInspector {

    /**
     * Lists the locks held now whose names match {@code pattern}.
     *
     * @param pattern a glob: {@code *} matches any run of characters, {@code ?} one character, everything else
     *        itself; {@code null} or {@code "*"} lists every held lock (see {@link #matches})
     * @return a snapshot of the matching held locks, sorted by name; empty if none
     * @throws io.latchkey.LockUnavailableException if the backend cannot be reached within the operation timeout
     */
    List<LockInfo> list(String pattern);

    /**
     * Tells whether {@code name} matches the glob {@code pattern} as {@link #list} defines it; for implementations
     * that filter on the client side, so that every backend agrees on what a pattern means.
     *
     * @param pattern the glob, or {@code null} for one that matches everything
     * @param name a lock name; not null
     * @return whether the whole of {@code name} matches {@code pattern}
     */
    static boolean matches(String pattern, String name) {
        if (pattern == null) {
            return true;
        }
        return globMatches(pattern, 0, name, 0);
    }

    private static boolean globMatches(String p, int pi, String s, int si) {
        // Iterative with one backtrack point: linear enough for lock names (at most 512 characters).
        int starP = -1;
        int starS = -1;
        while (si < s.length()) {
            if (pi < p.length() && (p.charAt(pi) == '?' || p.charAt(pi) == s.charAt(si))) {
                pi++;
                si++;
            } else if (pi < p.length() && p.charAt(pi) == '*') {
                starP = pi++;
                starS = si;
            } else if (starP >= 0) {
                pi = starP + 1;
                si = ++starS;
            } else {
                return false;
            }
        }
        while (pi < p.length() && p.charAt(pi) == '*') {
            pi++;
        }
        return pi == p.length();
    }
}
