package io.latchkey.core;

import java.util.Arrays;

/**
 * One write to a {@link io.latchkey.FencedStore}, as the backend's {@link RemoteFencedStoreOps} applies it: checked
 * against the hold and applied in one atomic server step.
 *
 * @param kind what to do
 * @param key the store key, already checked
 * @param expected for {@link Kind#COMPARE_AND_SET}: the value the key must have, or null for "no value"
 * @param value for {@link Kind#PUT} and {@link Kind#COMPARE_AND_SET}: the new value; null for a delete
 */
public record FencedWrite(Kind kind, String key, byte[] expected, byte[] value) {

    /** The write kinds. */
    public enum Kind {
        /** Set the value. Applied unless stale. */
        PUT,
        /** Set the value if the current one equals {@code expected} (none if null). */
        COMPARE_AND_SET,
        /** Remove the key; "applied" if it had a value. */
        DELETE
    }

    /** What the server did. */
    public enum Outcome {
        /** The hold was current and the write changed the key (a delete: the key had a value). */
        APPLIED,
        /** The hold was current but the compare-and-set did not match or the deleted key had no value. */
        UNCHANGED,
        /** The hold was not current: nothing was written. */
        STALE
    }

    /**
     * {@return whether this write changes a key whose value is {@code current}} For backends that apply writes in
     * their own code under a lock (mem, file) once the hold is known to be current.
     *
     * @param current the key's value now, or null
     */
    public boolean matches(byte[] current) {
        return switch (kind) {
            case PUT -> true;
            case COMPARE_AND_SET -> expected == null ? current == null : current != null && Arrays.equals(current, expected);
            case DELETE -> current != null;
        };
    }

    @Override
    public String toString() {
        return kind + " " + key;
    }
}
