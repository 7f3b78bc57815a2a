package dev.toolgate.examples.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * The demo server's metrics in the Prometheus text format on {@code http://BIND:PORT/metrics}, on the
 * JDK's own HTTP server (one thread: a scrape is one small write). Demo only: a real host serves its
 * registry where it serves its other metrics.
 */
public final class DemoMetrics implements AutoCloseable {

    private final HttpServer server;

    private DemoMetrics(HttpServer server) {
        this.server = server;
    }

    /** Serves {@code registry}'s scrape at {@code /metrics} on {@code bind:port} (0 for any free port). */
    public static DemoMetrics start(PrometheusMeterRegistry registry, String bind, int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(bind, port), 0);
        server.createContext("/metrics", exchange -> scrape(exchange, registry));
        server.start();
        return new DemoMetrics(server);
    }

    private static void scrape(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("GET") && !exchange.getRequestMethod().equals("HEAD")) {
                exchange.getResponseHeaders().add("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            if (exchange.getRequestMethod().equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** The scrape address. */
    public String url() {
        InetSocketAddress address = server.getAddress();
        return "http://" + address.getHostString() + ":" + address.getPort() + "/metrics";
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
