package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.latchkey.core.RemoteCountOps;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

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
        return watch(session, key, prefix, false, keys -> changed.run());
    }

    /**
     * Watches only the deletions under {@code prefix} (a lock's queue: only a deleted key can let a waiter in) and
     * hands {@code deleted} the keys of each response; a broken watch hands it {@code null} (anything may have
     * changed).
     */
    static CompletableFuture<RemoteCountOps.Subscription> deletions(EtcdSession session, String prefix,
                                                                    Consumer<List<String>> deleted) {
        return watch(session, prefix, true, true, deleted);
    }

    private static CompletableFuture<RemoteCountOps.Subscription> watch(EtcdSession session, String key,
                                                                        boolean prefix, boolean deletesOnly,
                                                                        Consumer<List<String>> events) {
        GetOption count = GetOption.builder().isPrefix(prefix).withCountOnly(true).build();
        return session.bounded(session.client().getKVClient().get(bytes(key), count), "read " + key).thenApply(r -> {
            WatchOption from = WatchOption.builder().isPrefix(prefix).withRevision(r.getHeader().getRevision() + 1)
                    .withNoPut(deletesOnly).build();
            Watch.Watcher watcher = session.client().getWatchClient().watch(bytes(key), from,
                    Watch.listener(response -> {
                        List<String> keys = new ArrayList<>(response.getEvents().size());
                        for (WatchEvent event : response.getEvents()) {
                            keys.add(EtcdKeys.string(event.getKeyValue().getKey()));
                        }
                        events.accept(keys);
                    }, error -> events.accept(null)));
            return watcher::close;
        });
    }
}
