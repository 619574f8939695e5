package io.latchkey.file.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The text of {@link FileNames#STATE_FILE}: fixed width, so that it is rewritten in place (no truncation a crash
 * could leave empty):
 * <pre>
 * latchkey-state 2
 * boot &lt;the kernel's boot id when the ceiling was written, or -&gt;
 * last-token &lt;20 digits&gt;
 * ceiling &lt;20 digits&gt;
 * </pre>
 * See {@link DirectorySection} for what the numbers guarantee. A damaged or foreign file reads as zeros with no
 * boot id (the next token then starts from the clock and is forced to disk).
 */
final class TokenState {

    private static final int BOOT_WIDTH = 36;

    long last;
    long ceiling;
    String boot;

    static TokenState read(FileChannel ch) throws IOException {
        TokenState s = new TokenState();
        byte[] bytes = FileNames.readAll(ch, 4096);
        if (bytes == null) {
            return s;
        }
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            try {
                if (line.startsWith("last-token ")) {
                    s.last = Long.parseLong(line.substring("last-token ".length()).trim());
                } else if (line.startsWith("ceiling ")) {
                    s.ceiling = Long.parseLong(line.substring("ceiling ".length()).trim());
                } else if (line.startsWith("boot ")) {
                    String b = line.substring("boot ".length()).trim();
                    s.boot = b.isEmpty() || b.chars().allMatch(c -> c == '-') ? null : b;
                }
            } catch (NumberFormatException damaged) {
                return new TokenState();
            }
        }
        return s;
    }

    void write(FileChannel ch) throws IOException {
        String b = boot == null ? "-".repeat(BOOT_WIDTH) : boot;
        if (b.length() < BOOT_WIDTH) {
            b = b + " ".repeat(BOOT_WIDTH - b.length());
        }
        byte[] text = String.format("latchkey-state 2%nboot %s%nlast-token %020d%nceiling %020d%n", b, last,
                ceiling).replace("\r\n", "\n").getBytes(StandardCharsets.UTF_8);
        FileNames.writeAll(ch, text);
    }

    /** The Linux kernel's boot id, or {@code null} elsewhere. */
    static String bootId() {
        try {
            String id = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"), StandardCharsets.US_ASCII)
                    .trim();
            return id.isEmpty() || id.length() > BOOT_WIDTH || id.contains(" ") ? null : id;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
