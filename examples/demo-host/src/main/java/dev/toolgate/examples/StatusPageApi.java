package dev.toolgate.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.toolgate.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The status page API behind the demo's OpenAPI source: a tiny HTTP server on 127.0.0.1 (a free port)
 * that serves its own OpenAPI document at {@value #DOCUMENT_PATH} and the API the document describes
 * under {@code /api}, with its data in memory. Every API request must carry the bearer token the host
 * put in the gate's SecretResolver (a new one each run), and is recorded, so the demo can show what
 * reached the API and what did not. Closed at the end of the demo.
 */
final class StatusPageApi implements AutoCloseable {

    static final String DOCUMENT_PATH = "/openapi/statuspage.yaml";
    private static final String DOCUMENT_RESOURCE = "openapi/statuspage.yaml";

    /** An API request as it arrived (the document's own fetches are not recorded). */
    record Received(String method, String path, String body, boolean authorized) {

        @Override
        public String toString() {
            return method + " " + path + (body.isEmpty() ? "" : " " + body);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final byte[] document;
    private final String token;
    private final Map<String, ObjectNode> components = new ConcurrentSkipListMap<>();
    private final Map<String, ObjectNode> maintenanceWindows = new ConcurrentHashMap<>();
    private final AtomicInteger updates = new AtomicInteger();
    private final List<Received> received = new CopyOnWriteArrayList<>();

    private StatusPageApi() throws IOException {
        try (InputStream in = StatusPageApi.class.getClassLoader().getResourceAsStream(DOCUMENT_RESOURCE)) {
            if (in == null) {
                throw new IOException("the classpath has no " + DOCUMENT_RESOURCE);
            }
            document = in.readAllBytes();
        }
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        token = "sp_demo_" + HexFormat.of().formatHex(random);
        component("billing", "Billing service");
        component("db", "Primary database");
        component("web", "Checkout web");
        ObjectNode window = Json.object().put("id", "MW-1").put("componentId", "db").put("title", "Storage firmware upgrade");
        maintenanceWindows.put("MW-1", window);

        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        executor = Executors.newFixedThreadPool(2, r -> {
            Thread thread = new Thread(r, "statuspage-api");
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    /** Starts the server on a free port of 127.0.0.1. */
    static StatusPageApi start() {
        try {
            return new StatusPageApi();
        } catch (IOException e) {
            throw new UncheckedIOException("the demo's status page API could not start", e);
        }
    }

    /** Where the OpenAPI document is served. */
    URI documentUrl() {
        return url(DOCUMENT_PATH);
    }

    /** The API's base URL, the only server the source may send requests to. */
    URI baseUrl() {
        return url("/api");
    }

    private URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** The bearer token the API accepts, for the host's SecretResolver only. */
    String token() {
        return token;
    }

    /** Every API request so far, oldest first. */
    List<Received> received() {
        return List.copyOf(received);
    }

    private void component(String id, String name) {
        components.put(id, Json.object().put("id", id).put("name", name).put("status", "operational").putNull("updatedAt"));
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getRawPath();
            if (method.equals("GET") && path.equals(DOCUMENT_PATH)) {
                send(exchange, 200, "application/yaml", document);
                return;
            }
            boolean authorized = ("Bearer " + token).equals(exchange.getRequestHeaders().getFirst("Authorization"));
            received.add(new Received(method, path, body, authorized));
            if (!authorized) {
                json(exchange, 401, error("a bearer token is required"));
                return;
            }
            answer(exchange, method, path, body);
        }
    }

    private void answer(HttpExchange exchange, String method, String path, String body) throws IOException {
        String[] segments = path.split("/");
        if (method.equals("GET") && path.equals("/api/components")) {
            ArrayNode all = Json.mapper().createArrayNode();
            components.values().forEach(all::add);
            json(exchange, 200, all);
        } else if (method.equals("GET") && segments.length == 4 && path.startsWith("/api/components/")) {
            ObjectNode component = components.get(segments[3]);
            json(exchange, component == null ? 404 : 200, component == null ? error("no component " + segments[3]) : component);
        } else if (method.equals("POST") && path.equals("/api/status-updates")) {
            postStatusUpdate(exchange, body);
        } else if (method.equals("DELETE") && segments.length == 4 && path.startsWith("/api/maintenance-windows/")) {
            if (maintenanceWindows.remove(segments[3]) == null) {
                json(exchange, 404, error("no maintenance window " + segments[3]));
            } else {
                send(exchange, 204, null, new byte[0]);
            }
        } else {
            json(exchange, 404, error("no route for " + method + " " + path));
        }
    }

    private void postStatusUpdate(HttpExchange exchange, String body) throws IOException {
        JsonNode request;
        try {
            request = Json.parse(body);
        } catch (RuntimeException e) {
            json(exchange, 400, error("the body is not JSON"));
            return;
        }
        String componentId = request.path("componentId").asString("");
        ObjectNode component = components.get(componentId);
        if (component == null) {
            json(exchange, 404, error("no component " + componentId));
            return;
        }
        String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
        component.put("status", request.path("status").asString("")).put("updatedAt", now);
        ObjectNode update = Json.object().put("id", "SU-" + updates.incrementAndGet()).put("componentId", componentId)
                .put("status", request.path("status").asString("")).put("message", request.path("message").asString(""))
                .put("postedAt", now);
        json(exchange, 201, update);
    }

    private static ObjectNode error(String message) {
        return Json.object().put("message", message);
    }

    private static void json(HttpExchange exchange, int status, JsonNode body) throws IOException {
        send(exchange, status, "application/json", Json.write(body).getBytes(StandardCharsets.UTF_8));
    }

    private static void send(HttpExchange exchange, int status, String contentType, byte[] body) throws IOException {
        if (contentType != null) {
            exchange.getResponseHeaders().set("Content-Type", contentType);
        }
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** Stops the server at once and its threads with it. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
