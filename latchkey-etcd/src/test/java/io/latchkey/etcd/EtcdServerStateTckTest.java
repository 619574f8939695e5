package io.latchkey.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.tck.ServerStateTck;
import io.latchkey.testing.EtcdServerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The TCK's {@link ServerStateTck} against a real etcd server (one per test class).
 *
 * <p>{@link #serverObjects()} counts the keys under {@code latchkey/} with a plain jetcd client (a count-only range
 * read): a free lock leaves none, its holder's and waiters' keys are deleted (or go with their lease).
 *
 * <p>{@link #loseServerData()} kills etcd (SIGKILL) and starts it again <em>with</em> its data: tokens are revisions,
 * positions in the server's own history, which no client-side scheme can carry across the loss of that history.
 * What etcd promises, and this checks, is that the revision never goes back across a crash and restart; a member
 * whose data directory is lost starts again at revision 1 and tokens then repeat (docs/fencing.md).
 */
class EtcdServerStateTckTest extends ServerStateTck {

    @RegisterExtension
    static final EtcdServerExtension etcd = new EtcdServerExtension();

    @Override
    protected LockClient newClient(ClientOptions options) {
        return LockClient.connect(etcd.uri(), options);
    }

    @Override
    protected String backendName() {
        return "etcd";
    }

    /** Also the etcd lease's TTL (whole seconds, server minimum about 2 s): roomy on a loaded 2-core machine. */
    @Override
    protected Duration watchdogTimeout() {
        return Duration.ofSeconds(2);
    }

    @Override
    protected long serverObjects() throws Exception {
        try (Client admin = Client.builder().endpoints(etcd.endpoint()).build()) {
            return admin.getKVClient().get(ByteSequence.from("latchkey/", StandardCharsets.UTF_8),
                    GetOption.builder().isPrefix(true).withCountOnly(true).build()).get(10, TimeUnit.SECONDS).getCount();
        }
    }

    /** A crash and a restart with the data (see the class comment for why not without). */
    @Override
    protected void loseServerData() {
        etcd.server().kill();
        etcd.server().start();
    }
}
