package io.latchkey.tck;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A {@link FencedRegister} shared by the processes of one host: a file holding the highest accepted token, read and
 * written under an OS file lock.
 */
public final class FileFencedRegister {

    private final Path file;

    public FileFencedRegister(Path file) {
        this.file = file;
    }

    /** Accepts the write unless a higher token was accepted before. */
    public boolean write(long token) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE); FileLock ignored = ch.lock()) {
            long highest = read(ch);
            if (token < highest) {
                return false;
            }
            ch.truncate(0);
            ch.write(ByteBuffer.wrap(Long.toString(token).getBytes(StandardCharsets.US_ASCII)), 0);
            ch.force(false);
            return true;
        }
    }

    /** The highest accepted token, {@link Long#MIN_VALUE} if none. */
    public long highest() throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE); FileLock ignored = ch.lock()) {
            return read(ch);
        }
    }

    private static long read(FileChannel ch) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(32);
        ch.read(buf, 0);
        String s = new String(buf.array(), 0, buf.position(), StandardCharsets.US_ASCII).trim();
        return s.isEmpty() ? Long.MIN_VALUE : Long.parseLong(s);
    }
}
