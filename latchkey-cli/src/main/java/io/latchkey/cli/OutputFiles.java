package io.latchkey.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Checks a file the command will write ({@code --report}) before any work starts, so that a run of minutes does not
 * end in a bare {@code NoSuchFileException}: the path must not be a directory, and its directory must exist (or be
 * creatable) and accept a new file, which is tried for real (permissions alone do not tell: root, read-only mounts,
 * {@code /proc}).
 */
final class OutputFiles {

    private OutputFiles() {
    }

    /**
     * @param option the option that named the file, for the message ({@code --report})
     * @param extensions the accepted extensions ({@code .html}, {@code .csv}); empty accepts any
     * @throws CliException (usage) with one line saying what is wrong with {@code file}
     */
    static void checkWritable(Path file, String option, String... extensions) {
        Path absolute = file.toAbsolutePath().normalize();
        if (Files.isDirectory(absolute)) {
            throw usage("%s %s: is a directory, not a file", option, file);
        }
        if (extensions.length > 0) {
            String lower = file.getFileName() == null ? "" : file.getFileName().toString().toLowerCase(Locale.ROOT);
            boolean ok = false;
            for (String ext : extensions) {
                ok |= lower.endsWith(ext);
            }
            if (!ok) {
                throw usage("%s %s: the file name must end in %s", option, file, String.join(" or ", extensions));
            }
        }
        if (Files.exists(absolute) && !Files.isRegularFile(absolute)) {
            throw usage("%s %s: exists and is not a regular file", option, file);
        }
        Path parent = absolute.getParent();
        Path existing = parent;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        if (existing == null || !Files.isDirectory(existing)) {
            throw usage("%s %s: %s is not a directory", option, file, existing == null ? parent : existing);
        }
        if (existing.equals(parent)) {
            tryWrite(file, option, parent);
        } else if (!Files.isWritable(existing)) {
            throw usage("%s %s: cannot create directory %s (%s is not writable)", option, file, parent, existing);
        }
        if (Files.exists(absolute) && !Files.isWritable(absolute)) {
            throw usage("%s %s: the file exists and is not writable", option, file);
        }
    }

    private static void tryWrite(Path file, String option, Path dir) {
        try {
            Path probe = Files.createTempFile(dir, ".latchkey-", ".tmp");
            Files.deleteIfExists(probe);
        } catch (IOException | SecurityException | UnsupportedOperationException e) {
            String why = e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                    : e instanceof java.nio.file.FileSystemException f && f.getReason() != null ? f.getReason()
                    : e.getClass().getSimpleName();
            throw usage("%s %s: cannot write in directory %s (%s)", option, file, dir, why);
        }
    }

    private static CliException usage(String format, Object... args) {
        return new CliException(CliException.USAGE, String.format(format, args));
    }
}
