package dev.toolgate.spring.boot;

import dev.toolgate.console.ConsoleRequest;
import dev.toolgate.console.ConsoleResponse;
import dev.toolgate.console.ToolgateConsole;
import dev.toolgate.call.CallContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The console as a servlet: each request becomes a {@link ConsoleRequest} (with the identity the
 * application's security established, when the console signs people in through the application),
 * and the {@link ConsoleResponse} is written back as it is.
 */
final class ConsoleServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** The identity of a request, decided by the application's own security layer. */
    interface HostIdentity {
        /** The person's context, or empty; or {@link Refusal} to answer without asking the console. */
        Optional<CallContext> of(HttpServletRequest request) throws Refusal;
    }

    /** A request the application's security refuses before the console sees it (403). */
    static final class Refusal extends Exception {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message, null, false, false);
        }
    }

    private final transient ToolgateConsole console;
    private final transient HostIdentity identity;

    ConsoleServlet(ToolgateConsole console, HostIdentity identity) {
        this.console = console;
        this.identity = identity;
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String mount = req.getContextPath() + req.getServletPath();
        String uri = req.getRequestURI();
        String path = uri.startsWith(mount) ? uri.substring(mount.length()) : "";
        ConsoleRequest.Builder request = ConsoleRequest.builder(req.getMethod(), mount, path)
                .query(req.getQueryString())
                .remoteAddress(req.getRemoteAddr())
                .secure(req.isSecure());
        for (String name : Collections.list(req.getHeaderNames())) {
            for (String value : Collections.list(req.getHeaders(name))) {
                request.header(name, value);
            }
        }
        try (InputStream in = req.getInputStream()) {
            request.body(in.readNBytes(ToolgateConsole.MAX_BODY_BYTES + 1));
        }
        if (identity != null) {
            try {
                identity.of(req).ifPresent(request::authenticatedAs);
            } catch (Refusal refusal) {
                resp.setStatus(403);
                resp.setContentType("application/json");
                resp.setHeader("Cache-Control", "no-store");
                byte[] body = ("{\"error\":\"forbidden\",\"message\":\"" + refusal.getMessage() + "\"}").getBytes(StandardCharsets.UTF_8);
                resp.setContentLength(body.length);
                resp.getOutputStream().write(body);
                return;
            }
        }
        ConsoleResponse response = console.handle(request.build());
        resp.setStatus(response.status());
        for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
            for (String value : header.getValue()) {
                resp.addHeader(header.getKey(), value);
            }
        }
        byte[] body = response.body();
        if (body.length > 0) {
            resp.setContentLength(body.length);
            resp.getOutputStream().write(body);
        }
    }
}
