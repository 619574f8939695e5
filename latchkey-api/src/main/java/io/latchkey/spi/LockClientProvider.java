package io.latchkey.spi;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import java.util.List;

/**
 * How {@link LockClient#connect(String, ClientOptions)} finds a backend: each backend module registers one
 * implementation in {@code META-INF/services/io.latchkey.spi.LockClientProvider}.
 */
public interface LockClientProvider {

    /**
     * {@return the URI prefixes this provider accepts, such as {@code "redis://"} or {@code "jdbc:postgresql:"}} They
     * are compared with a URI ignoring case, and used both to choose the provider and to list the supported schemes in
     * error messages.
     */
    List<String> uriPrefixes();

    /**
     * Creates a client for {@code uri}, which starts with one of {@link #uriPrefixes()}.
     *
     * @param uri the URI given to {@link LockClient#connect(String, ClientOptions)}; may contain a password
     * @param options the options given with it; not null
     * @return a new client, connected, that the caller owns and closes
     * @throws io.latchkey.LockUnavailableException if the backend cannot be reached
     * @throws IllegalArgumentException if the URI is malformed (the message must not contain its password)
     */
    LockClient create(String uri, ClientOptions options);
}
