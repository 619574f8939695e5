package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

/**
 * The wake-ups of the engine's waiters ({@link RemoteCountOps#subscribe}, {@code RemoteLockOps#subscribe}): a watch
 * on a key or a prefix from the revision just after a read, so the subscription is complete (every later change
 * reported) the moment its future completes. Every reported event, and a broken watch, calls the listener: the engine
 * looks again (and re-checks on its timer if the watch stays broken).
 */
final class EtcdChanges {

    private EtcdChanges() {
    }

    static CompletableFuture<RemoteCountOps.Subscription> subscribe(EtcdSession session, String key, boolean prefix,
                                                                    Runnable changed) {
        return watch(session, key, prefix, false, null, changed);
    }

    /**
     * Watches only the deletions under {@code prefix} (a lock's queue: only a deleted key can let a waiter in), and of
     * those only the ones {@code wakes} accepts (the key a waiter of this client waits for); a broken watch always
     * calls {@code changed}.
     */
    static CompletableFuture<RemoteCountOps.Subscription> deletions(EtcdSession session, String prefix,
                                                                    Predicate<String> wakes, Runnable changed) {
        return watch(session, prefix, true, true, wakes, changed);
    }

    private static CompletableFuture<RemoteCountOps.Subscription> watch(EtcdSession session, String key,
                                                                        boolean prefix, boolean deletesOnly,
                                                                        Predicate<String> wakes, Runnable changed) {
        // wakes == null: every response wakes (the counted primitives)
        GetOption count = GetOption.builder().isPrefix(prefix).withCountOnly(true).build();
        return session.bounded(session.client().getKVClient().get(bytes(key), count), "read " + key).thenApply(r -> {
            WatchOption from = WatchOption.builder().isPrefix(prefix).withRevision(r.getHeader().getRevision() + 1)
                    .withNoPut(deletesOnly).build();
            Watch.Watcher watcher = session.client().getWatchClient().watch(bytes(key), from,
                    Watch.listener(response -> {
                        if (wakes == null) {
                            changed.run();
                            return;
                        }
                        for (WatchEvent event : response.getEvents()) {
                            if (wakes.test(EtcdKeys.string(event.getKeyValue().getKey()))) {
                                changed.run();
                                return;
                            }
                        }
                    }, error -> changed.run()));
            return watcher::close;
        });
    }
}
