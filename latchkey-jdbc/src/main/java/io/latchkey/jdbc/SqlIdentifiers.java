package io.latchkey.jdbc;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Checks the table and column names that the JDBC helpers put into SQL text. Values always travel as bind
 * parameters; identifiers cannot, so they must be plain identifiers: a letter or underscore, then letters,
 * digits or underscores, at most 63 characters (PostgreSQL's limit), optionally qualified by one schema name.
 */
final class SqlIdentifiers {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private SqlIdentifiers() {
    }

    /** Returns {@code name} if it is a plain identifier; otherwise throws naming {@code kind}. */
    static String identifier(String kind, String name) {
        Objects.requireNonNull(name, kind);
        if (!IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(String.format(
                    "%s must be a plain SQL identifier (letter or underscore, then letters, digits or underscores, "
                            + "at most 63 characters) but was '%s'", kind, printable(name)));
        }
        return name;
    }

    /** Returns {@code name} if it is {@code identifier} or {@code schema.identifier}. */
    static String qualifiedName(String kind, String name) {
        Objects.requireNonNull(name, kind);
        int dot = name.indexOf('.');
        if (dot < 0) {
            return identifier(kind, name);
        }
        try {
            identifier(kind, name.substring(0, dot));
            identifier(kind, name.substring(dot + 1));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(String.format(
                    "%s must be a plain SQL identifier, optionally schema-qualified (schema.name), but was '%s'",
                    kind, printable(name)));
        }
        return name;
    }

    private static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && i < 80; i++) {
            char c = s.charAt(i);
            b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        return s.length() > 80 ? b + "…" : b.toString();
    }
}
