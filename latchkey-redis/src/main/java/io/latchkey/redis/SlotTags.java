package io.latchkey.redis;

import java.nio.charset.StandardCharsets;

/**
 * For each of the 16384 cluster slots, a short decimal string that hashes to it; built on first use, which only
 * happens for lock keys that cannot be wrapped in a hash tag (they contain a '}' but no valid tag).
 */
final class SlotTags {

    private SlotTags() {
    }

    static String tagFor(int slot) {
        return Holder.TAGS[slot];
    }

    private static final class Holder {
        static final String[] TAGS = build();

        private static String[] build() {
            String[] tags = new String[16384];
            int missing = tags.length;
            for (int i = 0; missing > 0; i++) {
                String candidate = Integer.toString(i);
                int slot = Crc16.of(candidate.getBytes(StandardCharsets.US_ASCII)) & 16383;
                if (tags[slot] == null) {
                    tags[slot] = candidate;
                    missing--;
                }
            }
            return tags;
        }
    }
}
