package dev.toolgate.console;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsExchange;
import dev.toolgate.call.CallContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Adapts the console to {@code com.sun.net.httpserver}: reads a bounded body, writes the answer. The
 * console's public handler never says a request is host-authenticated; a host-sign-in adapter gives
 * the function that reads its own security layer's verdict from the exchange.
 */
final class JdkHttpHandler implements HttpHandler {

    /** The most of an oversized body read and dropped before answering 413. */
    private static final long DRAIN_LIMIT = 4L * 1024 * 1024;

    private final ToolgateConsole console;
    private final Function<HttpExchange, CallContext> authenticatedAs;

    JdkHttpHandler(ToolgateConsole console) {
        this(console, exchange -> null);
    }

    /** @param authenticatedAs who the server's own security layer authenticated the exchange as, or null */
    JdkHttpHandler(ToolgateConsole console, Function<HttpExchange, CallContext> authenticatedAs) {
        this.console = console;
        this.authenticatedAs = authenticatedAs;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String mount = exchange.getHttpContext().getPath();
            String fullPath = exchange.getRequestURI().getRawPath();
            String mountNoSlash = mount.endsWith("/") ? mount.substring(0, mount.length() - 1) : mount;
            String path = fullPath.length() >= mountNoSlash.length() ? fullPath.substring(mountNoSlash.length()) : "";
            byte[] body;
            try (InputStream in = exchange.getRequestBody()) {
                body = in.readNBytes(ToolgateConsole.MAX_BODY_BYTES + 1);
                if (body.length > ToolgateConsole.MAX_BODY_BYTES) {
                    // Read (and drop) a moderately oversized body so the client hears the 413 rather than
                    // a reset; beyond DRAIN_LIMIT the connection is closed unread.
                    long drained = 0;
                    byte[] sink = new byte[8192];
                    int n;
                    while (drained < DRAIN_LIMIT && (n = in.read(sink)) > 0) {
                        drained += n;
                    }
                }
            }
            InetSocketAddress remote = exchange.getRemoteAddress();
            ConsoleRequest request = ConsoleRequest.builder(exchange.getRequestMethod(), mountNoSlash, path)
                    .query(exchange.getRequestURI().getRawQuery())
                    .headers(exchange.getRequestHeaders())
                    .body(body)
                    .remoteAddress(remote == null || remote.getAddress() == null ? "" : remote.getAddress().getHostAddress())
                    .secure(exchange instanceof HttpsExchange)
                    .authenticatedAs(authenticatedAs.apply(exchange))
                    .build();
            ConsoleResponse response = console.handle(request);
            for (Map.Entry<String, List<String>> header : response.headers().entrySet()) {
                for (String value : header.getValue()) {
                    exchange.getResponseHeaders().add(header.getKey(), value);
                }
            }
            byte[] bytes = response.bodyUnsafe();
            boolean bodiless = response.status() == 204 || response.status() == 304 || bytes.length == 0
                    || exchange.getRequestMethod().equalsIgnoreCase("HEAD");
            exchange.sendResponseHeaders(response.status(), bodiless ? -1 : bytes.length);
            if (!bodiless) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }
}
