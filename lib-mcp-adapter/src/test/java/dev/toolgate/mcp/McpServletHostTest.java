package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The servlet endpoint's {@code Host} check ({@link McpServletBuilder#allowedHosts}) on an embedded
 * Jetty bound to 127.0.0.1, over raw sockets: off by default (a reverse proxy on the same machine
 * forwards the public name over loopback); once set, the configured names and the loopback names with
 * the connection's port pass, a hostile corpus gets 403 (or 400 when malformed), before
 * authentication and without a session being created.
 */
@Timeout(60)
class McpServletHostTest {

    private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
            + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";

    private Toolgate gate;
    private McpServletEndpoint endpoint;
    private ServedMcp served;

    private int start(UnaryOperator<McpServletBuilder> customize) {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        endpoint = customize.apply(ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(
                token -> Optional.ofNullable(Fixtures.TOKENS.get(token))))).build();
        served = ServedMcp.jetty(endpoint);
        return served.port();
    }

    @AfterEach
    void stop() {
        if (served != null) {
            served.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    /** The status of an initialize sent with exactly these {@code Host} lines (none when empty). */
    private int status(List<String> hostLines, String token) throws Exception {
        try (Socket socket = new Socket("127.0.0.1", served.port())) {
            socket.setSoTimeout(10_000);
            StringBuilder head = new StringBuilder("POST " + endpoint.path() + " HTTP/1.1\r\n");
            for (String host : hostLines) {
                head.append("Host: ").append(host).append("\r\n");
            }
            if (token != null) {
                head.append("Authorization: Bearer ").append(token).append("\r\n");
            }
            byte[] body = INIT.getBytes(StandardCharsets.UTF_8);
            head.append("Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n")
                    .append("Content-Length: ").append(body.length).append("\r\nConnection: close\r\n\r\n");
            OutputStream out = socket.getOutputStream();
            out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.write(body);
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            assertThat(answer).startsWith("HTTP/1.1 ");
            return Integer.parseInt(answer.substring(9, 12));
        }
    }

    private int status(String host) throws Exception {
        return status(List.of(host), "carol-token");
    }

    @Test
    void withoutAllowedHostsAnyNameIsServedAsBefore() throws Exception {
        start(b -> b);
        assertThat(status("mcp.example.com")).isEqualTo(200);
        assertThat(status("evil.com:1")).isEqualTo(200);
    }

    @Test
    void configuredNamesAndTheLoopbackNamesWithTheConnectionsPortPassAndAHostileCorpusIsRefused() throws Exception {
        int port = start(b -> b.allowedHosts("mcp.example.com", "Proxy.Example.com:8443", "[2001:db8::1]"));
        for (String good : List.of("mcp.example.com", "MCP.example.COM:1234", "proxy.example.com:8443",
                "[2001:db8:0:0:0:0:0:1]:9", "127.0.0.1:" + port, "localhost:" + port, "LocalHost:" + port,
                "[::1]:" + port, "[0:0:0:0:0:0:0:1]:" + port)) {
            assertThat(status(good)).as("Host: %s", good).isEqualTo(200);
        }
        int sessions = endpoint.openSessions();
        for (String evil : List.of("evil.com", "evil.com:" + port, "proxy.example.com", "proxy.example.com:8444",
                "mcp.example.com.evil.com", "evil.mcp.example.com", "127.0.0.1.evil.com:" + port,
                "localhost.evil.com:" + port, "localhost.:" + port, "127.0.0.1", "localhost", "127.0.0.1:80",
                "127.0.0.1:" + (port == 65535 ? 1 : port + 1), "0.0.0.0:" + port, "127.0.0.2:" + port, "[::2]:" + port,
                "[::ffff:127.0.0.1]:" + port, "2130706433:" + port, "127.1:" + port, "0x7f000001:" + port)) {
            assertThat(status(evil)).as("Host: %s", evil).isEqualTo(403);
        }
        // malformed: Jetty refuses some itself, with 400 too, before the servlet sees them
        for (String malformed : List.of("evil.com/x", "user@127.0.0.1:" + port, "127.0.0.1:" + port + ", evil.com",
                "x".repeat(300), "127.0.0.1:99999")) {
            assertThat(status(malformed)).as("Host: '%s'", malformed).isEqualTo(400);
        }
        assertThat(status(List.of("127.0.0.1:" + port, "evil.com"), "carol-token")).as("a good and a bad Host").isEqualTo(400);
        assertThat(endpoint.openSessions()).as("no refused request started a session").isEqualTo(sessions);
    }

    @Test
    void theHostIsCheckedBeforeTheToken() throws Exception {
        int port = start(b -> b.allowedHosts("mcp.example.com"));
        assertThat(status(List.of("evil.com:" + port), null)).isEqualTo(403);
        assertThat(status(List.of("evil.com:" + port), "not-a-token")).isEqualTo(403);
        assertThat(status(List.of("mcp.example.com"), null)).as("a good host reaches the token check").isEqualTo(401);
    }

    @Test
    void aStarTurnsTheCheckOffAndBadEntriesAreRefusedAtOnce() throws Exception {
        start(b -> b.allowedHosts("*"));
        assertThat(status("anything.example")).isEqualTo(200);
        for (String bad : new String[] {"", "evil.com/path", "http://evil.com", "a b", "evil.com:port", "*.example.com", null}) {
            assertThatThrownBy(() -> ToolgateMcpServer.servlet(gate, McpRequestAuthenticator.bearer(token -> Optional.empty()))
                    .allowedHosts(bad)).as("allowedHosts(%s)", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowedHosts");
        }
    }
}
