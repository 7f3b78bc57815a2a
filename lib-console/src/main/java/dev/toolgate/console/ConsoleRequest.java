package dev.toolgate.console;

import dev.toolgate.call.CallContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One HTTP request to the console, as any server hands it over: the core that
 * {@link ToolgateConsole#handle(ConsoleRequest)} answers. {@link ToolgateConsole#httpHandler()} builds
 * it from a {@code com.sun.net.httpserver} exchange; a servlet or Spring host builds it in a few lines:
 *
 * <pre>{@code
 * ConsoleRequest request = ConsoleRequest.builder(req.getMethod(), "/console", pathAfterMount)
 *         .query(req.getQueryString())
 *         .header("Host", req.getHeader("Host"))      // every header, in fact
 *         .body(req.getInputStream().readNBytes(ToolgateConsole.MAX_BODY_BYTES + 1))
 *         .remoteAddress(req.getRemoteAddr())
 *         .secure(req.isSecure())
 *         .build();
 * }</pre>
 *
 * Header names are case-insensitive. The body may be longer than the console accepts; the console
 * answers 413 then (read at most {@link ToolgateConsole#MAX_BODY_BYTES} + 1 bytes).
 *
 * <p>A host whose own security layer already signed the person in (a console built with
 * {@link ToolgateConsole.Builder#hostSignIn()}) also passes who that is, with
 * {@link Builder#authenticatedAs(CallContext)}.
 */
public final class ConsoleRequest {

    private final String method;
    private final String mountPath;
    private final String path;
    private final String query;
    private final Map<String, List<String>> headers;
    private final byte[] body;
    private final String remoteAddress;
    private final boolean secure;
    private final CallContext authenticatedAs;

    private ConsoleRequest(Builder b) {
        this.method = b.method;
        this.mountPath = b.mountPath;
        this.path = b.path;
        this.query = b.query;
        Map<String, List<String>> copy = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        b.headers.forEach((k, v) -> copy.put(k, List.copyOf(v)));
        this.headers = Collections.unmodifiableMap(copy);
        this.body = b.body;
        this.remoteAddress = b.remoteAddress;
        this.secure = b.secure;
        this.authenticatedAs = b.authenticatedAs;
    }

    /**
     * A builder.
     *
     * @param method    the HTTP method, such as {@code GET}
     * @param mountPath where the host mounted the console, such as {@code /console} ({@code ""} for the root)
     * @param path      the request path after the mount path, such as {@code /api/inbox} ({@code ""} or
     *                  {@code "/"} for the page itself); not decoded
     */
    public static Builder builder(String method, String mountPath, String path) {
        return new Builder(method, mountPath, path);
    }

    /** The HTTP method, upper case. */
    public String method() {
        return method;
    }

    /** Where the console is mounted, without a trailing slash ({@code ""} for the root). */
    public String mountPath() {
        return mountPath;
    }

    /** The path after the mount path, starting with {@code /} unless empty. */
    public String path() {
        return path;
    }

    /** The raw query string without {@code ?}, or {@code ""}. */
    public String query() {
        return query;
    }

    /** The first value of a header, if present. */
    public Optional<String> header(String name) {
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? Optional.empty() : Optional.ofNullable(values.get(0));
    }

    /** Every value of a header (empty if absent). */
    public List<String> headers(String name) {
        return headers.getOrDefault(name, List.of());
    }

    /** The body bytes (a copy). */
    public byte[] body() {
        return body.clone();
    }

    int bodyLength() {
        return body.length;
    }

    byte[] bodyUnsafe() {
        return body;
    }

    /** The client's address, for throttling failed logins; may be {@code ""}. */
    public String remoteAddress() {
        return remoteAddress;
    }

    /** True if the request arrived over HTTPS. */
    public boolean secure() {
        return secure;
    }

    /**
     * Who the host's own security layer authenticated this request as, if it said so with
     * {@link Builder#authenticatedAs(CallContext)}. Only a console built with
     * {@link ToolgateConsole.Builder#hostSignIn()} takes it into account.
     */
    public Optional<CallContext> authenticatedAs() {
        return Optional.ofNullable(authenticatedAs);
    }

    /** The method and path, and the principal id the host authenticated the request as (if any); nothing more. */
    @Override
    public String toString() {
        return method + " " + mountPath + path + (authenticatedAs == null ? "" : " as " + authenticatedAs.principal().id());
    }

    /** Builds a {@link ConsoleRequest}. */
    public static final class Builder {
        private final String method;
        private final String mountPath;
        private final String path;
        private String query = "";
        private final Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        private byte[] body = new byte[0];
        private String remoteAddress = "";
        private boolean secure;
        private CallContext authenticatedAs;

        private Builder(String method, String mountPath, String path) {
            this.method = Objects.requireNonNull(method, "method").toUpperCase(Locale.ROOT);
            String mount = Objects.requireNonNull(mountPath, "mountPath");
            while (mount.endsWith("/")) {
                mount = mount.substring(0, mount.length() - 1);
            }
            if (!mount.isEmpty() && !mount.startsWith("/")) {
                throw new IllegalArgumentException("mountPath must start with '/': " + mountPath);
            }
            this.mountPath = mount;
            this.path = Objects.requireNonNull(path, "path");
        }

        /** The raw query string (without {@code ?}); null for none. */
        public Builder query(String v) {
            query = v == null ? "" : v;
            return this;
        }

        /** Adds a header value; a null value is ignored. */
        public Builder header(String name, String value) {
            Objects.requireNonNull(name, "name");
            if (value != null) {
                headers.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
            }
            return this;
        }

        /** Adds every value of every header. */
        public Builder headers(Map<String, List<String>> all) {
            all.forEach((name, values) -> {
                if (name != null && values != null) {
                    values.forEach(v -> header(name, v));
                }
            });
            return this;
        }

        /** The body; null for none. The array is not copied. */
        public Builder body(byte[] v) {
            body = v == null ? new byte[0] : v;
            return this;
        }

        /** The client's address. */
        public Builder remoteAddress(String v) {
            remoteAddress = v == null ? "" : v;
            return this;
        }

        /** True if the request arrived over HTTPS. */
        public Builder secure(boolean v) {
            secure = v;
            return this;
        }

        /**
         * The host vouches that it has already authenticated this request as {@code context} (its
         * principal and tenant); null says it has not. Only a console built with
         * {@link ToolgateConsole.Builder#hostSignIn()} honours it: there it opens and keeps the
         * console's session in place of the console's own sign-in form. Any other console ignores it.
         *
         * <p>An adapter must set it only from its own security layer (the authenticated principal of
         * the servlet request, a Spring Security {@code Authentication}, a verified token), never from
         * anything the client sent and the host did not verify: a header, a query parameter, a cookie
         * value, the body. Whoever can set it signs in as anyone.
         *
         * @param context who the host authenticated this request as, or null for nobody
         */
        public Builder authenticatedAs(CallContext context) {
            authenticatedAs = context;
            return this;
        }

        /** The request. */
        public ConsoleRequest build() {
            return new ConsoleRequest(this);
        }
    }
}
