package io.latchkey;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A lock name written over a method's parameters, for integrations without an expression language (Quarkus, Micronaut,
 * plain CDI): {@code "order:{orderId}"}, {@code "account:{transfer.from}"}, {@code "report"}.
 *
 * <h2>Syntax</h2>
 * Text is copied as it is; {@code {parameter}} is replaced by the parameter's value ({@link String#valueOf}, so
 * {@code null} becomes {@code "null"}); {@code {parameter.a.b}} follows public no-argument accessors on the value: a
 * record component or method {@code a()}, else a getter {@code getA()} / {@code isA()}. {@code {{} and {@code }}} stand
 * for literal braces. Nothing else is interpreted: a template cannot call anything but accessors of the method's own
 * arguments.
 *
 * <h2>When it is checked</h2>
 * {@link #parse} checks the syntax and that every placeholder names a parameter, so an integration can reject a bad
 * template when the application starts (Quarkus: at build time) instead of on the first call. An accessor path is
 * followed at {@link #render} time; a missing accessor is an {@link IllegalArgumentException} naming it. The rendered
 * name is checked by the client like any other lock name.
 *
 * <p>Instances are immutable and safe to share between threads.
 */
public final class LockNameTemplate {

    private final String template;
    /** Literal text and placeholders in order: a {@code String} is text, an {@code int[]} a placeholder. */
    private final List<Object> parts;
    private final List<String[]> paths;

    private LockNameTemplate(String template, List<Object> parts, List<String[]> paths) {
        this.template = template;
        this.parts = parts;
        this.paths = paths;
    }

    /**
     * Parses {@code template} for a method whose parameters are named {@code parameterNames}, in order.
     *
     * @param template the template, such as {@code "order:{orderId}"}
     * @param parameterNames the method's parameter names (compile with {@code -parameters} to keep them)
     * @return the parsed template
     * @throws IllegalArgumentException if a brace is unmatched, a placeholder is empty or names no parameter; the
     *         message names the template and the parameters
     * @throws NullPointerException if an argument is {@code null}
     */
    public static LockNameTemplate parse(String template, List<String> parameterNames) {
        Objects.requireNonNull(template, "template");
        Objects.requireNonNull(parameterNames, "parameterNames");
        List<Object> parts = new ArrayList<>();
        List<String[]> paths = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '{' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
                text.append('{');
                i += 2;
            } else if (c == '}' && i + 1 < template.length() && template.charAt(i + 1) == '}') {
                text.append('}');
                i += 2;
            } else if (c == '}') {
                throw bad(template, parameterNames, "a '}' at index " + i + " closes nothing (write '}}' for a brace)");
            } else if (c == '{') {
                int end = template.indexOf('}', i + 1);
                if (end < 0) {
                    throw bad(template, parameterNames, "the '{' at index " + i + " is not closed");
                }
                String expr = template.substring(i + 1, end).trim();
                String[] path = expr.split("\\.", -1);
                for (String step : path) {
                    if (step.isEmpty() || !isIdentifier(step)) {
                        throw bad(template, parameterNames, "'{" + expr + "}' is not a parameter name or a path of"
                                + " accessor names");
                    }
                }
                int index = parameterNames.indexOf(path[0]);
                if (index < 0) {
                    throw bad(template, parameterNames, "'{" + expr + "}' names no parameter");
                }
                if (text.length() > 0) {
                    parts.add(text.toString());
                    text.setLength(0);
                }
                parts.add(new int[] {index, paths.size()});
                paths.add(path);
                i = end + 1;
            } else {
                text.append(c);
                i++;
            }
        }
        if (text.length() > 0) {
            parts.add(text.toString());
        }
        return new LockNameTemplate(template, List.copyOf(parts), List.copyOf(paths));
    }

    /**
     * The lock name for one call.
     *
     * @param arguments the call's arguments, in parameter order
     * @return the name with every placeholder replaced
     * @throws IllegalArgumentException if an accessor of a path does not exist on the value, or fails
     */
    public String render(Object... arguments) {
        StringBuilder out = new StringBuilder(template.length() + 16);
        for (Object part : parts) {
            if (part instanceof String) {
                out.append((String) part);
                continue;
            }
            int[] ref = (int[]) part;
            String[] path = paths.get(ref[1]);
            Object value = ref[0] < arguments.length ? arguments[ref[0]] : null;
            for (int step = 1; step < path.length && value != null; step++) {
                value = access(value, path[step]);
            }
            out.append(value);
        }
        return out.toString();
    }

    /** {@return whether the template has no placeholder (its name is the same on every call)} */
    public boolean isConstant() {
        return paths.isEmpty();
    }

    /** {@return the template as written} */
    @Override
    public String toString() {
        return template;
    }

    private Object access(Object value, String name) {
        String cap = Character.toUpperCase(name.charAt(0)) + name.substring(1);
        for (String candidate : new String[] {name, "get" + cap, "is" + cap}) {
            Method m;
            try {
                m = value.getClass().getMethod(candidate);
            } catch (NoSuchMethodException e) {
                continue;
            }
            if (m.getReturnType() == void.class || Modifier.isStatic(m.getModifiers())) {
                continue;
            }
            try {
                m.setAccessible(true);
                return m.invoke(value);
            } catch (ReflectiveOperationException | RuntimeException e) {
                throw new IllegalArgumentException(String.format("lock name template '%s': %s.%s() failed: %s",
                        template, value.getClass().getName(), candidate, e), e);
            }
        }
        throw new IllegalArgumentException(String.format(
                "lock name template '%s': %s has no public accessor %s(), get%s() or is%s()", template,
                value.getClass().getName(), name, cap, cap));
    }

    private static boolean isIdentifier(String s) {
        if (!Character.isJavaIdentifierStart(s.charAt(0))) {
            return false;
        }
        for (int i = 1; i < s.length(); i++) {
            if (!Character.isJavaIdentifierPart(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    private static IllegalArgumentException bad(String template, List<String> parameters, String why) {
        return new IllegalArgumentException(String.format("lock name template '%s': %s (parameters: %s)", template,
                why, parameters));
    }
}
