package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
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
        return RawInitialize.status(served.port(), endpoint.path(), hostLines, token);
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
