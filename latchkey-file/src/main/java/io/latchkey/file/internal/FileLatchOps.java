package io.latchkey.file.internal;

import java.util.concurrent.CompletableFuture;

/**
 * The remote half of the file count-down latch: the state file {@code lk-<hash>.latch} holds the count while the
 * latch is armed and is deleted by the count-down that reaches zero, so an open latch leaves no file (no file
 * counts as 0). Every count-down is a read-modify-write inside the directory section: concurrent count-downs from
 * any process are never lost. The file has no lease: an armed latch stays armed however long its clients are gone.
 */
public final class FileLatchOps extends FileCountOps {

    public FileLatchOps(LockDirectory directory, String namespace) {
        super(directory, namespace, CountKind.LATCH);
    }

    @Override
    public CompletableFuture<Boolean> trySetCount(String name, long count) {
        return change("arm", name, (slot, s) -> {
            if (slot.record != null && slot.record.count > 0) {
                return false;
            }
            slot.orCreate().count = count;
            slot.changed = true;
            return true;
        });
    }

    @Override
    public CompletableFuture<Void> countDown(String name) {
        return change("count down", name, (slot, s) -> {
            if (slot.record == null) {
                return null;
            }
            if (slot.record.count <= 1) {
                slot.record = null; // open: the file goes
                slot.wake = true;
            } else {
                slot.record.count--;
            }
            slot.changed = true;
            return null;
        });
    }

    @Override
    public CompletableFuture<Long> getCount(String name) {
        return change("read", name, (slot, s) -> slot.record == null ? 0L : Math.max(0L, slot.record.count));
    }
}
