package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpError;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Exposed tool names: a mapping (here dots to underscores) round trip through {@code tools/list} and
 * {@code tools/call} with the SDK's client, propose and apply included; collisions and invalid names
 * refused at start naming both tools, and a tool registered later that collides left out while the
 * served one keeps its name.
 */
class McpToolNamesTest {

    private Toolgate gate;
    private ToolgateMcpServer server;
    private McpSyncClient client;

    @AfterEach
    void stop() {
        if (client != null) {
            client.closeGracefully();
        }
        if (server != null) {
            server.close();
        }
        if (gate != null) {
            gate.close();
        }
    }

    private static ToolProvider tool(String provider, String name, String answer) {
        return ToolProvider.of(provider, Tool.builder(name, NoInput.class).description("Answers " + answer + ".")
                .effect(Effect.READ).execute((in, ctx) -> answer).build());
    }

    private ToolgateMcpServer start(Toolgate toolgate, McpToolNames names) {
        return ToolgateMcpServer.http(toolgate, token -> Optional.ofNullable(Fixtures.TOKENS.get(token))).toolNames(names).start();
    }

    @Test
    void namesMappedToUnderscoresRoundTripThroughListCallAndApply() {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        server = start(gate, McpToolNames.replacing('.', '_'));
        client = Fixtures.http(server.endpoint().orElseThrow(), "carol-token");

        assertThat(Fixtures.names(client.listTools()))
                .containsExactly("ticket_create", "ticket_delete", "ticket_get", "ticket_list", "toolgate_apply");
        assertThat(Fixtures.text(Fixtures.call(client, "ticket_get", Map.of("id", "T-1")))).contains("Printer on fire");

        Map<String, Object> proposal = Fixtures.structured(Fixtures.call(client, "ticket_create", Map.of("title", "Paper jam")));
        assertThat(proposal).containsEntry("status", "awaiting_user").containsEntry("applyTool", "toolgate_apply");
        Map<String, Object> applied = Fixtures.structured(Fixtures.call(client, "toolgate_apply", Map.of("token", proposal.get("token"))));
        assertThat(applied).containsEntry("status", "applied");
        assertThat(Fixtures.text(Fixtures.call(client, "ticket_list", Map.of()))).contains("Paper jam");

        // the gate's own names are not served: unknown, as any unknown name
        assertThatThrownBy(() -> Fixtures.call(client, "ticket.get", Map.of("id", "T-1"))).isInstanceOf(McpError.class)
                .hasMessageContaining("Unknown tool");
    }

    @Test
    void aHiddenMappedToolIsIndistinguishableFromAMissingOne() {
        gate = Fixtures.gate(new Fixtures.Tickets(), ToolBudget.unlimited());
        server = start(gate, McpToolNames.replacing('.', '_'));
        client = Fixtures.http(server.endpoint().orElseThrow(), "bob-token");
        assertThat(Fixtures.names(client.listTools())).containsExactly("ticket_get", "ticket_list");

        McpError hidden = (McpError) org.assertj.core.api.Assertions.catchThrowable(() -> Fixtures.call(client, "admin_secret", Map.of()));
        McpError missing = (McpError) org.assertj.core.api.Assertions.catchThrowable(() -> Fixtures.call(client, "admin_secreu", Map.of()));
        assertThat(hidden.getJsonRpcError().code()).isEqualTo(missing.getJsonRpcError().code());
        assertThat(hidden.getJsonRpcError().message()).isEqualTo(missing.getJsonRpcError().message());
        assertThat(String.valueOf(hidden.getJsonRpcError().data())).isEqualTo("Tool not found: admin_secret")
                .doesNotContain("admin.secret");
        assertThat(String.valueOf(missing.getJsonRpcError().data())).isEqualTo("Tool not found: admin_secreu");
    }

    private static Toolgate gateWith(ToolProvider... providers) {
        dev.toolgate.ToolgateBuilder builder = Toolgate.builder().discoverTools(false).discoverComponents(false).sweepInterval(Duration.ZERO);
        for (ToolProvider provider : providers) {
            builder.provider(provider);
        }
        return builder.build();
    }

    @Test
    void aCollisionAtStartThrowsNamingBothTools() {
        gate = gateWith(tool("incident", "create_x", "dotted"), tool("incident_create", "x", "underscored"));
        McpToolNames underscores = McpToolNames.replacing('.', '_');
        assertThatThrownBy(() -> start(gate, underscores)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("incident.create_x").hasMessageContaining("incident_create.x")
                .hasMessageContaining("incident_create_x");
        // the default mapping keeps both apart
        server = start(gate, McpToolNames.standard());
        client = Fixtures.http(server.endpoint().orElseThrow(), "alice-token");
        assertThat(Fixtures.names(client.listTools())).contains("incident.create_x", "incident_create.x");
    }

    @Test
    void aNameOutsideMcpsRuleIsRefusedAtStart() {
        gate = gateWith(tool("incident", "create", "x"));
        assertThatThrownBy(() -> start(gate, McpToolNames.of(name -> name.startsWith("incident") ? name + "!" : name)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("incident.create").hasMessageContaining("'incident.create!'");
        assertThatThrownBy(() -> start(gate, McpToolNames.of(name -> name + "!"))).as("the apply tool's default name too")
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("toolgate.apply!");
        assertThatThrownBy(() -> start(gate, McpToolNames.of(name -> "x".repeat(129)))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> start(gate, name -> {
            if (name.startsWith("incident")) {
                throw new IllegalArgumentException("no mapping for " + name);
            }
            return name;
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("incident.create");
        assertThatThrownBy(() -> McpToolNames.replacing('.', ' ')).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> McpToolNames.replacing('.', ':')).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aToolRegisteredLaterThatCollidesIsLeftOutAndTheServedOneKeepsItsName() throws Exception {
        gate = gateWith(tool("incident", "create_x", "dotted"));
        server = start(gate, McpToolNames.replacing('.', '_'));
        client = Fixtures.http(server.endpoint().orElseThrow(), "alice-token");
        assertThat(Fixtures.names(client.listTools())).contains("incident_create_x");

        gate.registry().register(tool("incident_create", "x", "underscored"));
        gate.registry().register(tool("later", "fine", "fine")); // a later, harmless tool is served
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (!Fixtures.names(client.listTools()).contains("later_fine") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(Fixtures.names(client.listTools())).contains("later_fine", "incident_create_x")
                .filteredOn(name -> name.equals("incident_create_x")).hasSize(1);
        assertThat(Fixtures.text(Fixtures.call(client, "incident_create_x", Map.of()))).contains("dotted").doesNotContain("underscored");
    }
}
