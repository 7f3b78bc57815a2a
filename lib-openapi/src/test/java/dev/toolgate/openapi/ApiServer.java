package dev.toolgate.openapi;

import com.sun.net.httpserver.Headers;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * A real local HTTP server for the tests: it records every request exactly as it arrived (method, raw
 * path and query, headers, body bytes) and answers from routes the test sets, 404 otherwise.
 */
final class ApiServer implements AutoCloseable {

    /** A request as the server saw it. */
    record Seen(String method, String rawPath, String rawQuery, Map<String, List<String>> headers, byte[] body) {

        String header(String name) {
            List<String> values = headers.get(name.toLowerCase());
            return values == null ? null : values.get(0);
        }

        String bodyText() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /** An answer. */
    record Answer(int status, String contentType, byte[] body, Map<String, String> headers) {

        static Answer json(int status, String json) {
            return new Answer(status, "application/json", json.getBytes(StandardCharsets.UTF_8), Map.of());
        }

        static Answer text(int status, String contentType, String text) {
            return new Answer(status, contentType, text.getBytes(StandardCharsets.UTF_8), Map.of());
        }

        static Answer redirect(int status, String location) {
            return new Answer(status, null, new byte[0], Map.of("Location", location));
        }
    }

    /** A route that writes its own answer (a stream, a stall, a trickle) on the exchange; the request is recorded first. */
    @FunctionalInterface
    interface Raw {
        void answer(Seen request, HttpExchange exchange) throws IOException, InterruptedException;
    }

    private record Route(String method, Pattern path, Function<Seen, Answer> answer, Raw raw) {
    }

    private final HttpServer server;
    private final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final List<Route> routes = new CopyOnWriteArrayList<>();

    private ApiServer(int threads) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newFixedThreadPool(threads));
        server.createContext("/", this::handle);
        server.start();
    }

    static ApiServer start() throws IOException {
        return new ApiServer(4);
    }

    /** A server answering up to {@code threads} requests at once. */
    static ApiServer start(int threads) throws IOException {
        return new ApiServer(threads);
    }

    /** {@code http://127.0.0.1:<port>} followed by {@code path}. */
    URI url(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    int port() {
        return server.getAddress().getPort();
    }

    /** Answers {@code method} requests whose raw path matches {@code pathRegex}. */
    ApiServer on(String method, String pathRegex, Function<Seen, Answer> answer) {
        routes.add(0, new Route(method, Pattern.compile(pathRegex), answer, null));
        return this;
    }

    /** Answers {@code method} requests whose raw path matches {@code pathRegex} by writing on the exchange. */
    ApiServer raw(String method, String pathRegex, Raw raw) {
        routes.add(0, new Route(method, Pattern.compile(pathRegex), null, raw));
        return this;
    }

    /** Serves a document at {@code path}. */
    ApiServer document(String path, byte[] bytes, String contentType) {
        return on("GET", Pattern.quote(path), s -> new Answer(200, contentType, bytes, Map.of()));
    }

    /** Every request so far, documents included. */
    List<Seen> requests() {
        return List.copyOf(seen);
    }

    /** Requests so far whose path does not end in a document suffix. */
    List<Seen> apiRequests() {
        return seen.stream().filter(s -> !s.rawPath().matches(".*\\.(json|yaml|yml)$")).toList();
    }

    void clear() {
        seen.clear();
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            byte[] body = in.readAllBytes();
            Map<String, List<String>> headers = new TreeMap<>();
            Headers raw = exchange.getRequestHeaders();
            raw.forEach((name, values) -> headers.put(name.toLowerCase(), new ArrayList<>(values)));
            URI uri = exchange.getRequestURI();
            Seen request = new Seen(exchange.getRequestMethod(), uri.getRawPath(), uri.getRawQuery(), headers, body);
            seen.add(request);
            Answer answer = null;
            for (Route route : routes) {
                if (route.method().equals(request.method()) && route.path().matcher(request.rawPath()).matches()) {
                    if (route.raw() != null) {
                        try {
                            route.raw().answer(request, exchange);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return;
                    }
                    answer = route.answer().apply(request);
                    break;
                }
            }
            if (answer == null) {
                answer = Answer.json(404, "{\"message\":\"no route for " + request.method() + " " + request.rawPath() + "\"}");
            }
            if (answer.contentType() != null) {
                exchange.getResponseHeaders().set("Content-Type", answer.contentType());
            }
            answer.headers().forEach(exchange.getResponseHeaders()::set);
            boolean empty = answer.body().length == 0 || request.method().equals("HEAD");
            exchange.sendResponseHeaders(answer.status(), empty ? -1 : answer.body().length);
            if (!empty) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(answer.body());
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
