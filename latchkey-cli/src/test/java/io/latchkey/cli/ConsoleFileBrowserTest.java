package io.latchkey.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The console on a lock directory ({@code file://}) in a browser. */
class ConsoleFileBrowserTest extends ConsoleBrowserTestBase {

    private final Path dir = start();

    private static Path start() {
        try {
            return Files.createTempDirectory("latchkey-console");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    String uri() {
        return dir.toUri().toString();
    }
}
