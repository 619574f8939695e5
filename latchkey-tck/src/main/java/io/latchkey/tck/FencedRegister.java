package io.latchkey.tck;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The simplest fenced resource: it accepts a write only if the writer's fencing token (a leader's term) is at
 * least the highest it has accepted, as storage behind a lock or an election should.
 */
public final class FencedRegister {

    private final AtomicLong highest = new AtomicLong(Long.MIN_VALUE);

    /** Accepts the write (and remembers the token) unless a write with a higher token was accepted before. */
    public boolean write(long token) {
        while (true) {
            long h = highest.get();
            if (token < h) {
                return false;
            }
            if (highest.compareAndSet(h, token)) {
                return true;
            }
        }
    }

    public long highest() {
        return highest.get();
    }
}
