package dev.toolgate.mcp;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import dev.toolgate.access.Principal;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checks every request passes, in the order the transport applies them: host ({@link HttpHosts}),
 * origin, bearer token (401 with {@code WWW-Authenticate}, naming the {@link ProtectedResourceMetadata}
 * when configured), protocol version header, the session id, and the body's size. Each check that fails answers the
 * request itself and returns false, null or empty.
 */
final class HttpChecks {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpServer.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    static final String ALLOWED_METHODS = "GET, POST, DELETE, OPTIONS";

    private final HttpSettings settings;
    private final McpAuthenticator authenticator;
    private final HttpResponses responses;
    private final HttpSessions sessions;

    HttpChecks(HttpSettings settings, McpAuthenticator authenticator, HttpResponses responses, HttpSessions sessions) {
        this.settings = settings;
        this.authenticator = Objects.requireNonNull(authenticator, "authenticator");
        this.responses = responses;
        this.sessions = sessions;
    }

    /**
     * False after answering 400 (no, several or a malformed {@code Host} header) or 403 (a name not
     * allowed); see {@link HttpHosts}. Runs before anything else, so a refused request changes nothing.
     */
    boolean host(HttpExchange exchange, HttpHosts hosts) throws IOException {
        HttpHosts.Verdict verdict = hosts.check(exchange.getRequestHeaders().get("Host"));
        if (verdict == HttpHosts.Verdict.ALLOWED) {
            return true;
        }
        exchange.getResponseHeaders().set("Connection", "close");
        if (verdict == HttpHosts.Verdict.MALFORMED) {
            responses.sendError(exchange, 400, null, JsonRpc.INVALID_REQUEST, HttpHosts.MALFORMED_MESSAGE);
        } else {
            LOG.warn("Refused an MCP request for host {}", HttpHosts.printable(exchange.getRequestHeaders().getFirst("Host")));
            responses.sendError(exchange, 403, null, HttpResponses.FORBIDDEN, HttpHosts.FORBIDDEN_MESSAGE);
        }
        return false;
    }

    /** False after answering 403 when the request has a browser origin that is not allowed; sets the CORS headers otherwise. */
    boolean origin(HttpExchange exchange) throws IOException {
        String origin = exchange.getRequestHeaders().getFirst("Origin");
        if (origin == null) {
            return true;
        }
        if (!originAllowed(origin)) {
            LOG.warn("Refused an MCP request from origin {}", origin);
            responses.sendError(exchange, 403, null, HttpResponses.FORBIDDEN, "Forbidden: origin not allowed");
            return false;
        }
        Headers headers = exchange.getResponseHeaders();
        headers.set("Access-Control-Allow-Origin", origin);
        headers.add("Vary", "Origin");
        headers.set("Access-Control-Expose-Headers", "Mcp-Session-Id, MCP-Protocol-Version, WWW-Authenticate, Retry-After");
        return true;
    }

    /** Answers a CORS preflight (the origin was checked before). */
    static void preflight(HttpExchange exchange) throws IOException {
        Headers headers = exchange.getResponseHeaders();
        headers.set("Allow", ALLOWED_METHODS);
        headers.set("Access-Control-Allow-Methods", ALLOWED_METHODS);
        headers.set("Access-Control-Allow-Headers",
                "Authorization, Content-Type, Accept, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID");
        headers.set("Access-Control-Max-Age", "600");
        HttpResponses.sendStatus(exchange, 204);
    }

    private boolean originAllowed(String origin) {
        return originAllowed(origin, settings.allowedOrigins());
    }

    /**
     * True if a browser {@code origin} may call: one of {@code allowed} (lower case; {@code *} for
     * any), or, when {@code allowed} is empty, a loopback origin. Shared with the servlet endpoint.
     */
    static boolean originAllowed(String origin, Set<String> allowed) {
        if (!allowed.isEmpty()) {
            return allowed.contains("*") || allowed.contains(origin.toLowerCase(Locale.ROOT));
        }
        try {
            URI uri = URI.create(origin);
            String host = uri.getHost();
            return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && host != null
                    && (host.equals("localhost") || host.equals("127.0.0.1") || host.equals("[::1]") || host.equals("::1"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** The request's principal, or empty after answering 401. */
    Optional<Principal> authenticate(HttpExchange exchange) throws IOException {
        String header = exchange.getRequestHeaders().getFirst("Authorization");
        String token = null;
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            token = header.substring(7).trim();
        }
        if (token == null || token.isEmpty()) {
            exchange.getResponseHeaders().set("WWW-Authenticate", challenge(null, null));
            responses.sendError(exchange, 401, null, HttpResponses.UNAUTHORIZED, "Unauthorized: send Authorization: Bearer <token>");
            return Optional.empty();
        }
        Optional<Principal> principal;
        HttpWatchdog.Watch watch = HttpWatchdog.current();
        if (watch != null) {
            watch.suspend(); // the host's code: never interrupted, and its time is not the client's
        }
        try {
            principal = Objects.requireNonNullElse(authenticator.authenticate(token), Optional.empty());
        } catch (RuntimeException e) {
            LOG.warn("The MCP authenticator failed; refusing the request", LOGGED.redactThrowable(e));
            principal = Optional.empty();
        } finally {
            if (watch != null && !watch.resume()) {
                throw new InterruptedIOException("the request did not arrive in time");
            }
        }
        if (principal.isEmpty()) {
            exchange.getResponseHeaders().set("WWW-Authenticate", challenge("invalid_token", "The bearer token is not valid"));
            responses.sendError(exchange, 401, null, HttpResponses.UNAUTHORIZED, "Unauthorized: the bearer token is not valid");
        }
        return principal;
    }

    /** The {@code WWW-Authenticate} value of a 401, naming the resource metadata when configured. */
    private String challenge(String error, String description) {
        ProtectedResourceMetadata metadata = settings.resourceMetadata();
        if (metadata != null) {
            return metadata.challenge(error, description);
        }
        return "Bearer realm=\"toolgate\"" + (error == null ? "" : ", error=\"" + error + "\", error_description=\"" + description + "\"");
    }

    /** False after answering 400 when the {@code MCP-Protocol-Version} header names a version not served. */
    boolean versionSupported(HttpExchange exchange, Object requestId) throws IOException {
        String version = exchange.getRequestHeaders().getFirst(HttpResponses.VERSION_HEADER);
        if (version != null && !HttpTransport.PROTOCOL_VERSIONS.contains(version.strip())) {
            responses.sendError(exchange, 400, requestId, JsonRpc.INVALID_REQUEST,
                    "Bad Request: unsupported MCP-Protocol-Version " + version.strip() + "; supported: " + HttpTransport.PROTOCOL_VERSIONS);
            return false;
        }
        return true;
    }

    /**
     * The caller's session, or null after answering 400 (no id) or 404 (unknown, ended, or another
     * principal's). A returned session is in use until the caller calls {@link HttpSession#release()}.
     */
    HttpSession session(HttpExchange exchange, Principal principal, Object requestId) throws IOException {
        String id = exchange.getRequestHeaders().getFirst(HttpResponses.SESSION_HEADER);
        if (id == null || id.isBlank()) {
            responses.sendError(exchange, 400, requestId, JsonRpc.INVALID_REQUEST,
                    "Bad Request: the Mcp-Session-Id header is required after initialize");
            return null;
        }
        HttpSession session = sessions.get(id.strip());
        if (session == null || !session.principalKey.equals(principal.key()) || !session.acquire()) {
            responses.sendError(exchange, 404, requestId, HttpResponses.SESSION_NOT_FOUND, "Session not found; initialize a new session");
            return null;
        }
        return session;
    }

    /**
     * For requests without a body (GET, DELETE): reads what body there is, up to the size limit, and
     * marks the request arrived. False after answering 413.
     */
    boolean bodyless(HttpExchange exchange) throws IOException {
        if (readBody(exchange) == null) {
            exchange.getResponseHeaders().set("Connection", "close");
            responses.sendError(exchange, 413, null, JsonRpc.INVALID_REQUEST,
                    "Payload Too Large: the limit is " + settings.maxBodyBytes() + " bytes");
            return false;
        }
        return true;
    }

    /**
     * The whole request has been read: the read timeout no longer applies (what follows, such as a
     * tool call, is governed elsewhere). Throws if the watch fired first; the connection is gone.
     */
    private static void arrived() throws IOException {
        HttpWatchdog.Watch watch = HttpWatchdog.current();
        if (watch != null && !watch.disarm()) {
            throw new InterruptedIOException("the request did not arrive in time");
        }
    }

    /**
     * The body, or null if it is larger than the limit (then the request has not been read: its
     * read timeout still runs while the answer is written and the rest drained). Reading it whole
     * ends the read timeout.
     */
    byte[] readBody(HttpExchange exchange) throws IOException {
        int max = settings.maxBodyBytes();
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length != null) {
            try {
                if (Long.parseLong(length.strip()) > max) {
                    return null;
                }
            } catch (NumberFormatException e) {
                return null;
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        try (InputStream in = exchange.getRequestBody()) {
            int n;
            while ((n = in.read(buffer)) != -1) {
                if (body.size() + n > max) {
                    return null;
                }
                body.write(buffer, 0, n);
            }
        }
        arrived();
        return body.toByteArray();
    }
}
