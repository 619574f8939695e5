package io.latchkey.file.internal;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.file.FileLockClient;
import io.latchkey.spi.LockClientProvider;
import java.util.List;

/** Registers {@code file:} URIs with {@link LockClient#connect(String, ClientOptions)}. */
public final class FileLockClientProvider implements LockClientProvider {

    @Override
    public List<String> uriPrefixes() {
        return List.of(FileUri.PREFIX + "//");
    }

    @Override
    public LockClient create(String uri, ClientOptions options) {
        return FileLockClient.connect(uri, options);
    }
}
