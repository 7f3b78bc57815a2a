package dev.toolgate.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.ToolDefinitionException;
import dev.toolgate.tool.ToolProvider;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.annotation.ToolParam;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;

/** Spring AI tools (a {@code @Tool} bean, plain callbacks) governed by the gate. */
class SpringAiToolsTest {

    /** An ordinary Spring AI tool bean, governed with {@link Governed}. */
    public static class TicketService {
        final Map<String, String> tickets = new ConcurrentHashMap<>();
        final AtomicInteger opened = new AtomicInteger();

        @Tool(description = "Finds a ticket's title by id")
        @Governed(effect = Effect.READ, requires = "crm.read")
        public String findTicket(@ToolParam(description = "ticket id") String id) {
            return tickets.getOrDefault(id, "none");
        }

        @Tool(name = "open_ticket", description = "Opens a ticket")
        @Governed(effect = Effect.MUTATE, requires = "crm.write")
        public String openTicket(String id, String title) {
            opened.incrementAndGet();
            tickets.put(id, title);
            return "opened " + id;
        }
    }

    /** The same kind of bean, but one tool has no declared effect. */
    public static class Undeclared {
        @Tool(description = "Deletes everything")
        public String wipe() {
            return "wiped";
        }

        @Tool(description = "Reads")
        @Governed(effect = Effect.READ)
        public String peek() {
            return "peeked";
        }
    }

    private static Toolgate gate(ToolProvider provider) {
        return Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).provider(provider).build();
    }

    @Test
    void aToolWithoutADeclaredEffectIsRefusedAtRegistration() {
        assertThatThrownBy(() -> SpringAiTools.builder("ops").beans(new Undeclared()).build())
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("'wipe' has no declared effect")
                .hasMessageNotContaining("'peek'");
        ToolCallback[] plain = MethodToolCallbackProvider.builder().toolObjects(new Undeclared()).build().getToolCallbacks();
        assertThatThrownBy(() -> SpringAiTools.builder("ops").callbacks(plain).declare("peek", Effect.READ).build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("'wipe' has no declared effect");
        // declared by name instead: accepted
        assertThat(SpringAiTools.builder("ops").beans(new Undeclared()).declare("wipe", Effect.DESTRUCTIVE, "ops.admin")
                .build().tools()).hasSize(2);
    }

    @Test
    void declarationsThatNameNoToolOrDeclareTwiceAreRefused() {
        assertThatThrownBy(() -> SpringAiTools.builder("crm").beans(new TicketService()).declare("open_tickets", Effect.MUTATE)
                .build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("names no Spring AI tool 'open_tickets'");
        assertThatThrownBy(() -> SpringAiTools.builder("crm").beans(new TicketService()).declare("open_ticket", Effect.READ)
                .build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("declared twice");
    }

    @Test
    void aToolBeanBecomesGovernedToolsWithItsSchemaKept() {
        TicketService service = new TicketService();
        ToolProvider provider = SpringAiTools.builder("crm").beans(service).build();
        ToolCallback[] spring = MethodToolCallbackProvider.builder().toolObjects(service).build().getToolCallbacks();
        try (Toolgate gate = gate(provider)) {
            var open = gate.registry().find("crm.open_ticket").orElseThrow();
            assertThat(open.effect()).isEqualTo(Effect.MUTATE);
            assertThat(open.requiredAccessRules()).containsExactly("crm.write");
            String springSchema = java.util.Arrays.stream(spring)
                    .filter(c -> c.getToolDefinition().name().equals("open_ticket")).findFirst().orElseThrow()
                    .getToolDefinition().inputSchema();
            assertThat(open.descriptor().inputSchema()).isEqualTo(Json.parse(springSchema));
            assertThat(gate.registry().find("crm.findTicket").orElseThrow().effect()).isEqualTo(Effect.READ);
        }
    }

    @Test
    void aMutationOfASpringToolIsProposedWithAnArgumentsPreviewAndRunsOnlyOnApply() {
        TicketService service = new TicketService();
        Principal agent = Principal.user("agent", "crm.read", "crm.write");
        try (Toolgate gate = gate(SpringAiTools.builder("crm").beans(service).build())) {
            CallResult result = gate.call(CallContext.of(agent), "crm.open_ticket", "{\"id\":\"T-1\",\"title\":\"printer\"}");

            assertThat(result).isInstanceOf(Proposal.class);
            Proposal proposal = (Proposal) result;
            assertThat(proposal.summary()).contains("preview of the arguments only");
            assertThat(proposal.payload().path("title").asString()).isEqualTo("printer");
            assertThat(service.opened).hasValue(0);

            var applied = gate.apply(CallContext.of(agent), proposal.token());
            assertThat(applied.result().asString()).isEqualTo("opened T-1");
            assertThat(service.tickets).containsEntry("T-1", "printer");

            Executed read = (Executed) gate.call(CallContext.of(agent), "crm.findTicket", "{\"id\":\"T-1\"}");
            assertThat(read.result().asString()).isEqualTo("printer");
            assertThatThrownBy(() -> gate.call(CallContext.of(Principal.user("guest", "crm.read")), "crm.open_ticket",
                    "{\"id\":\"T-2\",\"title\":\"x\"}")).isInstanceOf(ForbiddenException.class);
        }
    }

    @Test
    void roundTripASpringToolBeanGovernedAndOfferedBackToAChatClient() {
        TicketService service = new TicketService();
        service.tickets.put("T-7", "vpn broken");
        Principal agent = Principal.user("agent", "crm.read", "crm.write");
        try (Toolgate gate = gate(SpringAiTools.builder("crm").beans(service).build())) {
            ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> agent).build();
            ScriptedChatModel model = ScriptedChatModel.sending(List.of(
                    new ScriptedChatModel.Call("crm__findTicket", "{\"id\":\"T-7\"}"),
                    new ScriptedChatModel.Call("crm__open_ticket", "{\"id\":\"T-8\",\"title\":\"mouse\"}")));

            ChatClient.create(model).prompt("tickets").toolCallbacks(tools).call().content();

            assertThat(model.offered().get(0)).containsExactly("crm__findTicket", "crm__open_ticket");
            assertThat(Json.parse(model.toolResults().get(0)).path("result").asString()).isEqualTo("vpn broken");
            assertThat(Json.parse(model.toolResults().get(1)).path("status").asString()).isEqualTo("awaiting_operator");
            assertThat(service.opened).hasValue(0);
            assertThat(service.tickets).doesNotContainKey("T-8");
        }
    }
}
