package io.latchkey.jdbc.tck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.latchkey.Capability;
import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import org.junit.jupiter.api.Test;

/** Advisory locks have no row to check a store's write against: the fenced store is refused, naming the backend. */
class AdvisoryFencedStoreUnsupportedTest {

    @Test
    void theAdvisoryClientRefusesAFencedStoreNamingTheBackend() {
        try (LockClient client = AdvisoryPools.client(JdbcTckDatabases.postgres(), ClientOptions.defaults())) {
            assertThat(client.capabilities()).doesNotContain(Capability.FENCED_STORE);
            assertThatThrownBy(() -> client.fencedStore("order:42")).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("jdbc-advisory").hasMessageContaining("fencedStore");
        }
    }
}
