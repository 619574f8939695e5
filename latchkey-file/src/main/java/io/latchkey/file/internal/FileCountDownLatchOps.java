package io.latchkey.file.internal;

import io.latchkey.core.CountKind;
import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the file count-down latch: the state file {@code lk-<hash>.latch} holds the count while the
 * latch is armed and is deleted by the count-down that reaches zero, so an open latch leaves no file (no file
 * counts as 0). Every count-down is a read-modify-write inside the directory section: concurrent count-downs from
 * any process are never lost. The file has no lease: an armed latch stays armed however long its clients are gone.
 */
public final class FileCountDownLatchOps extends FileCountOps {

    public FileCountDownLatchOps(LockDirectory directory, String namespace) {
        super(directory, namespace, CountKind.LATCH);
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return change("arm", name, (loaded, s) -> {
            if (loaded.record != null && loaded.record.count > 0) {
                return false;
            }
            loaded.orCreate().count = count;
            loaded.changed = true;
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> countDown(String name) {
        return change("count down", name, (loaded, s) -> {
            if (loaded.record == null) {
                return null;
            }
            if (loaded.record.count <= 1) {
                loaded.record = null; // open: the file goes
                loaded.wake = true;
            } else {
                loaded.record.count--;
            }
            loaded.changed = true;
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return change("read", name, (loaded, s) -> loaded.record == null ? 0L : Math.max(0L, loaded.record.count));
    }
}
