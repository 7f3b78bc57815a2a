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
 * The {@code Host} header check (DNS rebinding) over raw sockets, since an HTTP client will not send a
 * chosen {@code Host}: a corpus of names each accepted (200) or refused (403 for a name not allowed,
 * 400 for a missing, repeated or malformed header), refused before authentication and without a
 * session being created.
 */
@Timeout(60)
class McpHttpHostTest {

    private Toolgate gate;
    private ToolgateMcpServer server;

    private int start(UnaryOperator<McpHttpBuilder> customize) {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        server = customize.apply(ToolgateMcpServer.http(gate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))).start();
        return server.port();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    /** The status of an initialize sent with exactly these {@code Host} lines (none when empty). */
    private int status(List<String> hostLines, String token) throws Exception {
        return RawInitialize.status(server.port(), "/mcp", hostLines, token);
    }

    private int status(String host) throws Exception {
        return status(List.of(host), "carol-token");
    }

    @Test
    void loopbackNamesWithTheBoundPortAreAcceptedAndEverythingElseRefused() throws Exception {
        int port = start(b -> b);
        for (String good : List.of("127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port, "LocalHost:" + port,
                "[::1]:" + port, "[0:0:0:0:0:0:0:1]:" + port, " 127.0.0.1:" + port + " ")) {
            assertThat(status(good)).as("Host: %s", good).isEqualTo(200);
        }
        int sessions = server.openSessions();
        for (String evil : List.of("evil.com", "evil.com:" + port, "127.0.0.1.evil.com:" + port, "localhost.evil.com:" + port,
                "evil.com.localhost:" + port, "localhost.:" + port, "127.0.0.1:" + (port == 65535 ? 1 : port + 1),
                "127.0.0.1", "localhost", "127.0.0.1:80", "0.0.0.0:" + port, "127.0.0.2:" + port, "[::2]:" + port,
                "[::ffff:127.0.0.1]:" + port, "2130706433:" + port, "127.1:" + port, "0x7f000001:" + port)) {
            assertThat(status(evil)).as("Host: %s", evil).isEqualTo(403);
        }
        for (String malformed : List.of("", "127.0.0.1:" + port + ", evil.com", "evil.com/x", "user@127.0.0.1:" + port,
                "[::1", "::1:" + port, "127.0.0.1:99999", "127.0.0.1:0", "127.0.0.1:-1", "127.0.0.1:" + port + ":" + port,
                "x".repeat(300), "[fe80::1%25eth0]:" + port, "127.0.0.1:" + port + "\tevil")) {
            assertThat(status(malformed)).as("Host: '%s'", malformed).isEqualTo(400);
        }
        assertThat(status(List.of(), "carol-token")).as("no Host").isEqualTo(400);
        assertThat(status(List.of("127.0.0.1:" + port, "127.0.0.1:" + port), "carol-token")).as("Host twice").isEqualTo(400);
        assertThat(status(List.of("127.0.0.1:" + port, "evil.com"), "carol-token")).as("a good and a bad Host").isEqualTo(400);
        assertThat(server.openSessions()).as("no refused request started a session").isEqualTo(sessions);
    }

    @Test
    void theHostIsCheckedBeforeTheToken() throws Exception {
        int port = start(b -> b);
        assertThat(status(List.of("evil.com:" + port), null)).isEqualTo(403);
        assertThat(status(List.of("evil.com:" + port), "not-a-token")).isEqualTo(403);
        assertThat(status(List.of("127.0.0.1:" + port), null)).as("a good host reaches the token check").isEqualTo(401);
    }

    @Test
    void configuredNamesAreAllowedOnAnyPortOrTheirOwn() throws Exception {
        int port = start(b -> b.allowedHosts("mcp.example.com", "Proxy.Example.com:8443", "[2001:db8::1]"));
        assertThat(status("mcp.example.com")).isEqualTo(200);
        assertThat(status("MCP.example.COM:1234")).isEqualTo(200);
        assertThat(status("proxy.example.com:8443")).isEqualTo(200);
        assertThat(status("[2001:db8:0:0:0:0:0:1]:9")).isEqualTo(200);
        assertThat(status("127.0.0.1:" + port)).as("loopback defaults stay").isEqualTo(200);
        assertThat(status("proxy.example.com:8444")).isEqualTo(403);
        assertThat(status("proxy.example.com")).isEqualTo(403);
        assertThat(status("other.example.com")).isEqualTo(403);
        assertThat(status("mcp.example.com.evil.com")).isEqualTo(403);
    }

    @Test
    void aStarOrANonLoopbackBindWithoutNamesTurnsTheCheckOff() throws Exception {
        start(b -> b.allowedHosts("*"));
        assertThat(status("anything.example")).isEqualTo(200);
        assertThat(status(List.of(), "carol-token")).as("but a missing Host is still malformed").isEqualTo(400);
        server.close();
        gate.close();
        start(b -> b.bind("0.0.0.0"));
        assertThat(status("mcp.example.com")).isEqualTo(200);
    }

    @Test
    void badAllowedHostEntriesAreRefusedAtOnce() {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        for (String bad : new String[] {"", "evil.com/path", "http://evil.com", "a b", "evil.com:port", "*.example.com", null}) {
            assertThatThrownBy(() -> ToolgateMcpServer.http(gate, token -> Optional.empty()).allowedHosts(bad))
                    .as("allowedHosts(%s)", bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("allowedHosts");
        }
    }
}
