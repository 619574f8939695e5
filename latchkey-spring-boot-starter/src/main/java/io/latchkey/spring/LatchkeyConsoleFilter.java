package io.latchkey.spring;

import io.latchkey.console.ConsoleExchange;
import io.latchkey.console.LockConsole;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.util.Map;
import org.springframework.core.Ordered;

/**
 * Serves the lock console ({@link LockConsole}) under the {@code latchkey} actuator endpoint's path, e.g.
 * {@code /actuator/latchkey/console/}, and passes every other request on. It runs after the application's security
 * filters (it has the lowest precedence), so the console is protected as the actuator is; the audit log names the
 * request's authenticated user ({@code anonymous} without one). An event stream keeps its request thread while the
 * page is open.
 */
final class LatchkeyConsoleFilter implements Filter, Ordered {

    /** The request attribute under which Spring Security leaves its CSRF token, when it protects the request. */
    private static final String SECURITY_CSRF = "org.springframework.security.web.csrf.CsrfToken";

    private final LockConsole console;
    private final String root;

    /**
     * @param console the console it serves
     * @param root the console's path below the context path, e.g. {@code /actuator/latchkey/console}
     */
    LatchkeyConsoleFilter(LockConsole console, String root) {
        this.console = console;
        this.root = root;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request instanceof HttpServletRequest req && response instanceof HttpServletResponse res) {
            String path = req.getRequestURI().substring(req.getContextPath().length());
            if (path.equals(root)) {
                res.setStatus(HttpServletResponse.SC_FOUND); // the page's links are relative to its directory
                res.setHeader("Location", req.getContextPath() + root + "/");
                return;
            }
            if (path.startsWith(root + "/")) {
                String who = req.getUserPrincipal() != null ? req.getUserPrincipal().getName() : "anonymous";
                console.handle(new ServletExchange(req, res, path.substring(root.length())), who);
                return;
            }
        }
        chain.doFilter(request, response);
    }

    /** A servlet request as the console reads and answers it. */
    private record ServletExchange(HttpServletRequest req, HttpServletResponse res, String path)
            implements ConsoleExchange {

        @Override
        public String method() {
            return req.getMethod();
        }

        @Override
        public String header(String name) {
            return req.getHeader(name);
        }

        @Override
        public String origin() {
            String scheme = req.getScheme();
            int port = req.getServerPort();
            boolean defaultPort = scheme.equals("http") && port == 80 || scheme.equals("https") && port == 443;
            String host = req.getServerName();
            return scheme + "://" + (host.contains(":") ? "[" + host + "]" : host) + (defaultPort ? "" : ":" + port);
        }

        @Override
        public String remoteAddress() {
            return req.getRemoteAddr();
        }

        @Override
        public InputStream body() throws IOException {
            return req.getInputStream();
        }

        @Override
        public void setResponseHeader(String name, String value) {
            res.setHeader(name, value);
        }

        @Override
        public OutputStream respond(int status, long length) throws IOException {
            res.setStatus(status);
            if (length >= 0) {
                res.setContentLengthLong(length);
            }
            return res.getOutputStream();
        }

        /** Spring Security's CSRF token, when it protects this request: the page's force-unlock sends it along. */
        @Override
        public Map<String, String> pageHeaders() {
            Object token = req.getAttribute(SECURITY_CSRF);
            if (token == null) {
                return Map.of();
            }
            try {
                Class<?> type = Class.forName(SECURITY_CSRF, false, token.getClass().getClassLoader());
                Method header = type.getMethod("getHeaderName");
                Method value = type.getMethod("getToken");
                return Map.of((String) header.invoke(token), (String) value.invoke(token));
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return Map.of();
            }
        }
    }
}
