package io.latchkey.file.internal;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * Parses {@code file:///absolute/dir}, {@code file:/absolute/dir} and {@code file://localhost/absolute/dir}
 * (percent-escapes decoded). A remote host ({@code file://server/share}) is refused: this backend locks through the
 * local kernel; mount the share and name its local path.
 */
public final class FileUri {

    public static final String PREFIX = "file:";

    private FileUri() {
    }

    /**
     * @throws IllegalArgumentException with the reason if the URI is not a local absolute directory URI
     */
    public static Path parse(String uri) {
        if (uri == null || !uri.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            throw new IllegalArgumentException(String.format("not a file URI: %s", uri));
        }
        String rest = uri.substring(PREFIX.length());
        if (rest.indexOf('?') >= 0 || rest.indexOf('#') >= 0) {
            throw new IllegalArgumentException(String.format(
                    "file URI takes no query or fragment (the directory is the whole configuration): %s", uri));
        }
        if (rest.startsWith("//")) {
            int slash = rest.indexOf('/', 2);
            String host = slash < 0 ? rest.substring(2) : rest.substring(2, slash);
            if (!host.isEmpty() && !host.equalsIgnoreCase("localhost")) {
                throw new IllegalArgumentException(String.format(
                        "file URI must name a local directory (file:///path), not host '%s': %s", host, uri));
            }
            rest = slash < 0 ? "" : rest.substring(slash);
        }
        if (!rest.startsWith("/")) {
            throw new IllegalArgumentException(String.format(
                    "file URI must name an absolute directory, as in file:///var/lock/myapp: %s", uri));
        }
        while (rest.length() > 1 && rest.endsWith("/")) {
            rest = rest.substring(0, rest.length() - 1);
        }
        try {
            return Path.of(new URI("file://" + rest));
        } catch (URISyntaxException | IllegalArgumentException e) {
            throw new IllegalArgumentException(String.format("malformed file URI %s: %s", uri, e.getMessage()), e);
        }
    }
}
