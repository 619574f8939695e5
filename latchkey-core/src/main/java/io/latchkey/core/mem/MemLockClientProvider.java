package io.latchkey.core.mem;

import io.latchkey.ClientOptions;
import io.latchkey.LockClient;
import io.latchkey.core.TimeSource;
import io.latchkey.spi.LockClientProvider;
import java.util.List;

/**
 * {@code mem://<server>}: connects to the in-process server of that name ({@code mem://} alone means
 * {@code mem://default}). Registered in {@code META-INF/services/io.latchkey.spi.LockClientProvider}.
 */
public final class MemLockClientProvider implements LockClientProvider {

    static final String PREFIX = "mem://";

    /** Creates the provider; {@link java.util.ServiceLoader} calls it. */
    public MemLockClientProvider() {
    }

    @Override
    public List<String> uriPrefixes() {
        return List.of(PREFIX);
    }

    @Override
    public LockClient create(String uri, ClientOptions options) {
        String name = uri.substring(PREFIX.length());
        int query = name.indexOf('?');
        if (query >= 0) {
            name = name.substring(0, query);
        }
        while (name.endsWith("/")) {
            name = name.substring(0, name.length() - 1);
        }
        if (name.isEmpty()) {
            name = "default";
        }
        for (int i = 0; i < name.length(); i++) {
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException(String.format(
                        "mem server name must not contain control characters but had U+%04X at index %d",
                        (int) name.charAt(i), i));
            }
        }
        return new MemLockClient(name, options, TimeSource.SYSTEM);
    }
}
