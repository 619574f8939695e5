package io.latchkey.file.internal;

import io.latchkey.core.FencedWrite;
import io.latchkey.core.RemoteFencedStoreOps;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * The file backend's fenced store: one file per key, {@code stores/<lock file base>/<SHA-256 of the key>}, holding
 * the key (4-byte length, UTF-8) and the value; written to a temporary file and moved into place atomically. The
 * lock files, which the directory lists and sweeps, are never touched. A write runs on the directory's thread inside
 * one directory section, only while this JVM holds the lock with the writer's token (an unexpired exclusive hold):
 * holds end only on that thread and no other process can lock the file meanwhile, so the check and the write are
 * one step. Reads run on the same thread, so they see every write of this JVM in order, and whole files from other
 * processes (atomic moves).
 */
public final class FileFencedStoreOps implements RemoteFencedStoreOps {

    private final LockDirectory directory;
    private final String namespace;
    private final Path stores;

    public FileFencedStoreOps(LockDirectory directory, String namespace) {
        this.directory = directory;
        this.namespace = namespace;
        this.stores = directory.path().resolve("stores");
    }

    private Path keyFile(String lockName, String key) {
        return stores.resolve(FileNames.hash(namespace, lockName)).resolve(FileNames.sha256(key));
    }

    @Override
    public CompletableFuture<Optional<byte[]>> get(String lockName, String key) {
        Path file = keyFile(lockName, key);
        return directory.thread.submit("fenced store get", (s, after) -> Optional.ofNullable(read(file, key)));
    }

    @Override
    public CompletableFuture<FencedWrite.Outcome> write(String lockName, long token, FencedWrite write) {
        Path file = keyFile(lockName, write.key());
        String lockFile = FileNames.lockFile(namespace, lockName);
        return directory.thread.submit("fenced store write", (s, after) -> {
            LockEntry e = directory.arbiter.refresh(lockFile, s, after);
            if (e == null || !e.holdsExclusive(token)) {
                return FencedWrite.Outcome.STALE;
            }
            s.enter();
            byte[] current = read(file, write.key());
            if (!write.matches(current)) {
                return FencedWrite.Outcome.UNCHANGED;
            }
            if (write.kind() == FencedWrite.Kind.DELETE) {
                Files.deleteIfExists(file);
                try {
                    Files.deleteIfExists(file.getParent());   // only if that was the store's last key
                } catch (IOException notEmpty) {
                    // other keys remain
                }
            } else {
                writeAtomically(file, write.key(), write.value());
            }
            return FencedWrite.Outcome.APPLIED;
        });
    }

    /** The value stored for {@code key} in {@code file}, or {@code null}. */
    private static byte[] read(Path file, String key) throws IOException {
        byte[] all;
        try {
            all = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(all);
        int keyLength = b.getInt();
        String stored = new String(all, 4, keyLength, StandardCharsets.UTF_8);
        if (!stored.equals(key)) {
            throw new IOException("fenced store file " + file + " holds key '" + stored + "', not '" + key + "'");
        }
        return Arrays.copyOfRange(all, 4 + keyLength, all.length);
    }

    private static void writeAtomically(Path file, String key, byte[] value) throws IOException {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + k.length + value.length);
        b.putInt(k.length).put(k).put(value);
        Files.createDirectories(file.getParent());
        FileNames.replace(file, b.array());
    }
}
