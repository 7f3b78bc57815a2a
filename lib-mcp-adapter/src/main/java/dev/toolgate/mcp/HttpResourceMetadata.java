package dev.toolgate.mcp;

import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.Locale;
import java.util.Set;

/**
 * Serves the RFC 9728 document ({@link ProtectedResourceMetadata}) at the well-known path and at its
 * path-suffixed forms for the resource's path and the endpoint path. No authentication and no
 * {@code Origin} check (the document is public; {@code Access-Control-Allow-Origin: *}); GET only
 * (405 otherwise, with {@code Allow: GET}).
 */
final class HttpResourceMetadata {

    private final Set<String> paths;
    private final byte[] document;

    HttpResourceMetadata(ProtectedResourceMetadata metadata, String endpoint, HttpResponses responses) throws IOException {
        String base = ProtectedResourceMetadata.WELL_KNOWN_PATH;
        this.paths = Set.copyOf(java.util.List.of(base, base + metadata.resourcePath(), base + endpoint));
        this.document = responses.mapper().writeValueAsBytes(metadata.document());
    }

    /** Whether {@code path} is one of the document's paths. */
    boolean serves(String path) {
        return paths.contains(path);
    }

    void handle(HttpExchange exchange) throws IOException {
        exchange.getResponseHeaders().set("Access-Control-Allow-Origin", "*");
        String method = exchange.getRequestMethod().toUpperCase(Locale.ROOT);
        if (!method.equals("GET")) {
            exchange.getResponseHeaders().set("Allow", "GET");
            HttpResponses.sendStatus(exchange, 405);
            return;
        }
        exchange.getResponseHeaders().set("Cache-Control", "max-age=3600");
        HttpResponses.sendBytes(exchange, 200, document);
    }
}
