package io.latchkey.console;

/**
 * A small JSON writer for the console's answers. Every string is escaped, including {@code <}, {@code >},
 * {@code &} and the line separators, so that lock names and owners (text chosen by whoever took the lock) can never
 * end a script or an attribute, whatever the page does with them.
 */
final class ConsoleJson {

    private final StringBuilder out = new StringBuilder(256);
    private boolean needsComma;

    ConsoleJson beginObject() {
        comma();
        out.append('{');
        needsComma = false;
        return this;
    }

    ConsoleJson endObject() {
        out.append('}');
        needsComma = true;
        return this;
    }

    ConsoleJson beginArray(String key) {
        key(key);
        out.append('[');
        needsComma = false;
        return this;
    }

    ConsoleJson endArray() {
        out.append(']');
        needsComma = true;
        return this;
    }

    ConsoleJson beginObject(String key) {
        key(key);
        out.append('{');
        needsComma = false;
        return this;
    }

    ConsoleJson field(String key, String value) {
        key(key);
        if (value == null) {
            out.append("null");
        } else {
            string(out, value);
        }
        needsComma = true;
        return this;
    }

    ConsoleJson field(String key, long value) {
        key(key);
        out.append(value);
        needsComma = true;
        return this;
    }

    /** A number, or {@code null} when {@code value} is negative (the console's "not known"). */
    ConsoleJson fieldOrNull(String key, long value) {
        key(key);
        out.append(value < 0 ? "null" : Long.toString(value));
        needsComma = true;
        return this;
    }

    ConsoleJson field(String key, boolean value) {
        key(key);
        out.append(value);
        needsComma = true;
        return this;
    }

    private void key(String key) {
        comma();
        string(out, key);
        out.append(':');
    }

    private void comma() {
        if (needsComma) {
            out.append(',');
        }
    }

    @Override
    public String toString() {
        return out.toString();
    }

    /** Appends {@code s} as a JSON string literal, escaping quotes, controls and HTML-significant characters. */
    static void string(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\'' || c == 0x2028 || c == 0x2029
                            || Character.isSurrogate(c) && !validSurrogate(s, i)) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    private static boolean validSurrogate(String s, int i) {
        char c = s.charAt(i);
        if (Character.isHighSurrogate(c)) {
            return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
        }
        return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
    }
}
