package dev.toolgate.console;

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

    @Override
    public String toString() {
        return method + " " + mountPath + path;
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

        /** The request. */
        public ConsoleRequest build() {
            return new ConsoleRequest(this);
        }
    }
}
