package io.latchkey.etcd.internal;

import static io.latchkey.etcd.internal.EtcdKeys.bytes;

import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.WatchOption;
import io.latchkey.core.RemoteCountOps;
import java.util.concurrent.CompletableFuture;

/**
 * The wake-ups of the counted primitives ({@link RemoteCountOps#subscribe}): a watch on a key or a prefix from the
 * revision just after a read, so the subscription is complete (every later change reported) the moment its future
 * completes. Every event, and a broken watch, calls the listener: the engine looks again (and re-checks on its
 * timer if the watch stays broken).
 */
final class EtcdChanges {

    private EtcdChanges() {
    }

    static CompletableFuture<RemoteCountOps.Subscription> subscribe(EtcdSession session, String key, boolean prefix,
                                                                    Runnable changed) {
        GetOption count = GetOption.builder().isPrefix(prefix).withCountOnly(true).build();
        return session.bounded(session.client().getKVClient().get(bytes(key), count), "read " + key).thenApply(r -> {
            WatchOption from = WatchOption.builder().isPrefix(prefix).withRevision(r.getHeader().getRevision() + 1)
                    .build();
            Watch.Watcher watcher = session.client().getWatchClient().watch(bytes(key), from,
                    Watch.listener(response -> changed.run(), error -> changed.run()));
            return watcher::close;
        });
    }
}
