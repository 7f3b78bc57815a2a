package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Size;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolValidationException;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/** Small tools built with the core API, the principals that use them, and client helpers. */
final class Fixtures {

    static final Principal ALICE = Principal.user("alice", "*");
    static final Principal BOB = Principal.user("bob", "ticket.read");
    static final Principal CAROL = Principal.user("carol", "ticket.read", "ticket.write");
    static final Principal SERVICE = Principal.service("robot", "*");

    static final Map<String, Principal> TOKENS = Map.of(
            "alice-token", ALICE, "bob-token", BOB, "carol-token", CAROL, "robot-token", SERVICE);

    static final List<String> CAROL_TOOLS = List.of("ticket.create", "ticket.delete", "ticket.get", "ticket.list", "toolgate.apply");
    static final List<String> BOB_TOOLS = List.of("ticket.get", "ticket.list");

    record TicketQuery(Optional<String> titleContains) {
    }

    record TicketId(String id) {
    }

    record NewTicket(@Size(min = 3, max = 80) String title) {
    }

    /** The tickets the tools read and change; one per test. */
    static final class Tickets {
        final Map<String, String> byId = new ConcurrentHashMap<>(Map.of("T-1", "Printer on fire"));
        final AtomicInteger next = new AtomicInteger(2);
    }

    private Fixtures() {
    }

    static ToolProvider ticketTools(Tickets tickets) {
        Tool<TicketQuery, Map<String, String>> list = Tool.builder("list", TicketQuery.class)
                .title("List tickets")
                .description("List tickets, optionally those whose title contains a text. Read-only.")
                .effect(Effect.READ)
                .requires("ticket.read")
                .execute((q, ctx) -> {
                    Map<String, String> found = new TreeMap<>();
                    tickets.byId.forEach((id, title) -> {
                        if (q.titleContains().map(title::contains).orElse(true)) {
                            found.put(id, title);
                        }
                    });
                    return found;
                })
                .build();
        Tool<TicketId, Map<String, String>> get = Tool.builder("get", TicketId.class)
                .description("Get one ticket by id. Read-only.")
                .effect(Effect.READ)
                .requires("ticket.read")
                .execute((in, ctx) -> Map.of("id", in.id(), "title", existing(tickets, in.id())))
                .build();
        Tool<NewTicket, Map<String, String>> create = Tool.builder("create", NewTicket.class)
                .title("Open a ticket")
                .description("Open a ticket with a title.")
                .effect(Effect.MUTATE)
                .requires("ticket.write")
                .dryRun((in, ctx) -> {
                    if (in.title().contains("forbidden word")) {
                        throw new ToolValidationException("/title", "the title must not contain 'forbidden word'");
                    }
                    return Preview.of("Open ticket \"" + in.title() + "\"");
                })
                .execute((in, ctx) -> {
                    String id = "T-" + tickets.next.getAndIncrement();
                    tickets.byId.put(id, in.title());
                    return Map.of("id", id, "title", in.title());
                })
                .revert((in, result, ctx) -> tickets.byId.remove(result.get("id")))
                .build();
        Tool<TicketId, Map<String, String>> delete = Tool.builder("delete", TicketId.class)
                .title("Delete a ticket")
                .description("Delete a ticket permanently.")
                .effect(Effect.DESTRUCTIVE)
                .requires("ticket.write")
                .dryRun((in, ctx) -> Preview.of("Delete " + in.id() + " \"" + existing(tickets, in.id()) + "\""))
                .execute((in, ctx) -> {
                    String title = existing(tickets, in.id());
                    tickets.byId.remove(in.id());
                    return Map.of("deleted", in.id(), "title", title);
                })
                .build();
        return ToolProvider.of("ticket", list, get, create, delete);
    }

    /** A tool only alice (who holds {@code *}) can see. */
    static ToolProvider adminTools() {
        Tool<NoInput, String> secret = Tool.builder("secret", NoInput.class)
                .description("Read the admin secret.")
                .effect(Effect.READ)
                .requires("admin.read")
                .openWorld(true)
                .execute((in, ctx) -> "42")
                .build();
        return ToolProvider.of("admin", secret);
    }

    private static String existing(Tickets tickets, String id) {
        String title = tickets.byId.get(id);
        if (title == null) {
            throw new ToolValidationException("/id", "no ticket " + id);
        }
        return title;
    }

    static Toolgate gate(Tickets tickets, ToolBudget budget) {
        return Toolgate.builder()
                .discoverTools(false)
                .discoverComponents(false)
                .budget(budget)
                .sweepInterval(Duration.ZERO)
                .provider(ticketTools(tickets))
                .provider(adminTools())
                .build();
    }

    static McpSyncClient http(URI endpoint, String token, UnaryOperator<McpClient.SyncSpec> customize) {
        String base = endpoint.getScheme() + "://" + endpoint.getAuthority();
        HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport.builder(base)
                .endpoint(endpoint.getPath())
                .addHttpRequestCustomizer((builder, method, uri, body, context) -> builder.header("Authorization", "Bearer " + token))
                .build();
        McpSyncClient client = customize.apply(McpClient.sync(transport)
                        .clientInfo(McpSchema.Implementation.builder("toolgate-test", "1.0").build())
                        .requestTimeout(Duration.ofSeconds(20)))
                .build();
        client.initialize();
        return client;
    }

    static McpSyncClient http(URI endpoint, String token) {
        return http(endpoint, token, spec -> spec);
    }

    static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> arguments) {
        return client.callTool(McpSchema.CallToolRequest.builder(tool).arguments(arguments).build());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> structured(McpSchema.CallToolResult result) {
        return (Map<String, Object>) result.structuredContent();
    }

    static String text(McpSchema.CallToolResult result) {
        return ((McpSchema.TextContent) result.content().get(0)).text();
    }

    static List<String> names(McpSchema.ListToolsResult result) {
        return result.tools().stream().map(McpSchema.Tool::name).sorted().toList();
    }
}
