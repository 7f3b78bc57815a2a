package dev.toolgate.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.jdbc.JdbcStore;
import dev.toolgate.mcp.remote.McpSource;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.source.SecretResolver;
import dev.toolgate.source.SourceStatus;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Size;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolDescriptor;
import dev.toolgate.tool.ToolProvider;
import io.modelcontextprotocol.client.McpSyncClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A gate in front of a gate: Toolgate's own MCP server as a remote tool source of other gates. Two
 * front gates (two instances on one H2 database, each with its own store and pool) follow the back gate's
 * tool changes through {@code tools/list_changed}, pass them on to their own MCP clients, and agree
 * on drift: a reviewed ALLOW whose schema changes waits for a person on both until an operator
 * re-confirms on either.
 */
class GateBehindGateTest {

    private static final Principal CAROL = Principal.user("carol", "*");
    private static final Principal OLGA = Principal.user("olga", "toolgate.approvals.manage", "*");

    private final Fixtures.Tickets tickets = new Fixtures.Tickets();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private Toolgate back;
    private ToolgateMcpServer backServer;

    @BeforeEach
    void startBack() {
        back = Fixtures.gate(tickets, ToolBudget.unlimited());
        backServer = ToolgateMcpServer.http(back, token -> Optional.ofNullable(Fixtures.TOKENS.get(token))).start();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        backServer.close();
        back.close();
    }

    private Toolgate front(JdbcStore store) {
        return front(store, backServer);
    }

    private Toolgate front(JdbcStore store, ToolgateMcpServer backServer) {
        Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                .sweepInterval(Duration.ZERO).policyCacheTtl(Duration.ZERO)
                .secrets(SecretResolver.of(Map.of("back-token", "alice-token")))
                .source(McpSource.http("tickets", backServer.endpoint().orElseThrow()).bearerSecret("back-token")
                        .displayName("Ticket gate").build())
                .build();
        closing.add(gate);
        return gate;
    }

    private final String database = "jdbc:h2:mem:front-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

    /** A store with its own pool on this test's database: each call stands for another instance. */
    private JdbcStore store() {
        JdbcStore store = JdbcStore.builder().url(database).poolSize(4).build();
        closing.add(store);
        return store;
    }

    private static CallContext ctx(Principal principal) {
        return CallContext.of(principal).withSession("front-1").withTenant("acme");
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(20);
        }
    }

    @Test
    void aFrontGateGovernsTheBackGatesToolsAndBothAskForConsent() {
        Toolgate front = front(store());
        assertThat(front.listSources().get(0).state()).isEqualTo(SourceStatus.State.AVAILABLE);
        assertThat(front.registry().find("mcp:tickets.ticket.list").orElseThrow().effect()).isEqualTo(Effect.READ);
        assertThat(front.registry().find("mcp:tickets.ticket.create").orElseThrow().effect()).isEqualTo(Effect.MUTATE);
        assertThat(front.registry().find("mcp:tickets.ticket.delete").orElseThrow().effect()).isEqualTo(Effect.DESTRUCTIVE);
        assertThat(front.registry().find("mcp:tickets.toolgate.apply").orElseThrow().effect()).isEqualTo(Effect.DESTRUCTIVE);

        Executed list = (Executed) front.call(ctx(CAROL), "mcp:tickets.ticket.list", "{}");
        assertThat(list.result().toString()).contains("Printer on fire");
        assertThat(back.findCalls(CallQuery.latest(10).tool("ticket.list"))).singleElement()
                .satisfies(r -> assertThat(r.principal().id()).as("the back gate sees the source's credentials").isEqualTo("alice"));

        Proposal atFront = (Proposal) front.call(ctx(CAROL), "mcp:tickets.ticket.create", "{\"title\":\"Coffee machine down\"}");
        assertThat(tickets.byId).hasSize(1);
        Applied sentToBack = front.apply(ctx(CAROL), atFront.token());
        assertThat(sentToBack.result().toString()).as("the back gate proposes in turn").contains("awaiting_user");
        assertThat(tickets.byId).as("no ticket until the back gate's consent").hasSize(1);

        assertThat(sentToBack.result().path("token").asString())
                .as("a front gate never passes a back gate's proposal token on: consent is given at one gate")
                .isEqualTo("[REDACTED]");

        // so the back gate serves its front in AUTO: MUTATE tools run once the front's operator agreed
        ToolgateMcpServer trusting = ToolgateMcpServer.http(back, token -> Optional.ofNullable(Fixtures.TOKENS.get(token)))
                .permissionMode(PermissionMode.AUTO).start();
        closing.add(trusting);
        Toolgate consentAtFront = front(store(), trusting);
        Proposal proposal = (Proposal) consentAtFront.call(ctx(CAROL), "mcp:tickets.ticket.create",
                "{\"title\":\"Coffee machine down\"}");
        assertThat(tickets.byId).as("nothing before the front's consent").hasSize(1);
        Applied applied = consentAtFront.apply(ctx(CAROL), proposal.token());
        assertThat(applied.result().path("status").asString()).isEqualTo("applied");
        assertThat(tickets.byId).containsValue("Coffee machine down");
        ToolDescriptor delete = consentAtFront.registry().find("mcp:tickets.ticket.delete").orElseThrow().descriptor();
        assertThat(delete.effect()).isEqualTo(Effect.DESTRUCTIVE);
    }

    @Test
    void aToolAddedBehindReachesTheFrontGatesMcpClientsWithoutWaitingForTheCache() throws Exception {
        Toolgate front = front(store());
        ToolgateMcpServer frontServer = ToolgateMcpServer.http(front,
                token -> Optional.ofNullable(Map.of("carol-front", CAROL).get(token))).start();
        closing.add(frontServer);
        List<String> seen = new CopyOnWriteArrayList<>();
        McpSyncClient client = Fixtures.http(frontServer.endpoint().orElseThrow(), "carol-front",
                spec -> spec.toolsChangeConsumer(tools -> tools.forEach(t -> seen.add(t.name()))));
        closing.add(client::closeGracefully);
        assertThat(Fixtures.names(client.listTools())).as("source tools are served under MCP names")
                .contains("mcp_tickets.ticket.list").doesNotContain("mcp_tickets.extra.ping")
                .allMatch(name -> name.matches("[A-Za-z0-9_.-]{1,128}"));

        back.registry().register(ToolProvider.of("extra", Tool.builder("ping", NoInput.class)
                .description("Ping.").effect(Effect.READ).execute((in, ctx) -> "pong").build()));

        await("the front's client hears of mcp_tickets.extra.ping", () -> seen.contains("mcp_tickets.extra.ping"));
        assertThat(Fixtures.names(client.listTools())).contains("mcp_tickets.extra.ping");
        assertThat(Fixtures.text(Fixtures.call(client, "mcp_tickets.extra.ping", Map.of()))).contains("pong");
    }

    record NewTicketV2(@Size(min = 3, max = 80) String title, Optional<String> priority) {
    }

    @Test
    void aDriftedToolWaitsForAPersonOnEveryFrontInstanceUntilReconfirmed() throws Exception {
        Toolgate one = front(store());
        Toolgate two = front(store());
        one.setMode(ctx(OLGA), OverrideScope.TENANT, "mcp:tickets.ticket.create", Mode.ALLOW);
        CallResult before = two.call(ctx(CAROL), "mcp:tickets.ticket.create", "{\"title\":\"Reviewed schema\"}");
        assertThat(before).as("a reviewed ALLOW goes straight to the back gate").isInstanceOf(Applied.class);

        String oldSchema = one.registry().find("mcp:tickets.ticket.create").orElseThrow().schemaFingerprint();
        back.registry().replace(ToolProvider.of("ticket", Tool.builder("create", NewTicketV2.class)
                .description("Open a ticket with a title and a priority.").effect(Effect.MUTATE).requires("ticket.write")
                .execute((in, ctx) -> Map.of("id", "T-99")).build()));
        for (Toolgate front : List.of(one, two)) {
            await("the front sees the new schema", () -> !front.registry().find("mcp:tickets.ticket.create").orElseThrow()
                    .schemaFingerprint().equals(oldSchema));
        }

        for (Toolgate front : List.of(one, two)) {
            CallResult drifted = front.call(ctx(CAROL), "mcp:tickets.ticket.create", "{\"title\":\"Changed schema\",\"priority\":\"p1\"}");
            assertThat(drifted).as("drifted ALLOW waits for a person").isInstanceOf(Proposal.class);
            ToolDescriptor tool = front.registry().find("mcp:tickets.ticket.create").orElseThrow().descriptor();
            assertThat(tool.inputSchema().path("properties").has("priority")).isTrue();
            assertThat(front.catalog(ctx(CAROL))).filteredOn(e -> e.descriptor().name().equals("mcp:tickets.ticket.create"))
                    .singleElement().satisfies(e -> {
                        assertThat(e.mode().drifted()).isTrue();
                        assertThat(e.mode().mode()).isEqualTo(Mode.REQUIRE_APPROVAL);
                    });
        }

        two.confirmSchema(ctx(OLGA), "mcp:tickets.ticket.create");
        assertThat(one.call(ctx(CAROL), "mcp:tickets.ticket.create", "{\"title\":\"Reconfirmed\",\"priority\":\"p2\"}"))
                .as("re-confirmed on one instance, ALLOW again on the other").isInstanceOf(Applied.class);
    }
}
