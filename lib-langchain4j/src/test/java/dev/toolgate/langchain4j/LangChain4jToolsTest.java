package dev.toolgate.langchain4j;

import static dev.toolgate.langchain4j.ScriptedChatModel.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolSpecifications;
import dev.langchain4j.service.AiServices;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.ToolDefinitionException;
import dev.toolgate.tool.ToolDescriptor;
import dev.toolgate.tool.ToolProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Existing LangChain4j {@code @Tool} objects registered as governed Toolgate tools. */
class LangChain4jToolsTest {

    /** Tools written for LangChain4j, unaware of Toolgate. */
    public static final class Tickets {
        final List<String> titles = new CopyOnWriteArrayList<>(List.of("Printer jam"));

        @Tool("Find tickets whose title contains the text")
        public List<String> findTickets(@P("text to look for") String text) {
            return titles.stream().filter(t -> t.contains(text)).toList();
        }

        @Tool("Open a ticket")
        public String openTicket(@P("the title") String title, @P("priority, 1 to 5") int priority) {
            titles.add(title);
            return "opened " + title + " at priority " + priority;
        }
    }

    /** The same kind of tools, governed by annotation. */
    public static final class Admin {
        int purged;

        @Tool(name = "purge_all", value = "Delete every ticket")
        @Governed(effect = Effect.DESTRUCTIVE, requires = "admin")
        public String purge() {
            purged++;
            return "purged";
        }
    }

    private final Principal alice = Principal.user("alice", "tickets.use");
    private Toolgate gate;

    @AfterEach
    void close() {
        if (gate != null) {
            gate.close();
        }
    }

    private Toolgate gate(ToolProvider... providers) {
        var builder = Toolgate.builder().discoverTools(false).discoverComponents(false);
        for (ToolProvider provider : providers) {
            builder.provider(provider);
        }
        gate = builder.build();
        return gate;
    }

    private static ToolProvider tickets(Tickets tickets) {
        return LangChain4jTools.plugin("tickets").add(tickets)
                .effect("findTickets", Effect.READ).effect("openTicket", Effect.MUTATE)
                .requires("findTickets", "tickets.use").requires("openTicket", "tickets.use")
                .build();
    }

    @Test
    void aToolWithoutADeclaredEffectIsRefusedNeverGuessed() {
        assertThatThrownBy(() -> LangChain4jTools.plugin("tickets").add(new Tickets())
                .effect("findTickets", Effect.READ).build())
                .isInstanceOf(ToolDefinitionException.class)
                .hasMessageContaining("'openTicket'").hasMessageContaining("Tickets.openTicket")
                .hasMessageContaining("no declared effect");
    }

    @Test
    void anEffectDeclaredForNoToolIsRefused() {
        assertThatThrownBy(() -> LangChain4jTools.plugin("tickets").add(new Tickets())
                .effect("findTickets", Effect.READ).effect("openTicket", Effect.MUTATE)
                .effect("openTickt", Effect.MUTATE).build())
                .isInstanceOf(ToolDefinitionException.class).hasMessageContaining("'openTickt'");
    }

    @Test
    void theLangChain4jSchemaIsKept() {
        gate(tickets(new Tickets()));
        ToolDescriptor open = gate.listTools(alice).stream().filter(d -> d.name().equals("tickets.openTicket"))
                .findFirst().orElseThrow();
        JsonNode expected = LangChain4jTools.schemaOf(ToolSpecifications.toolSpecificationsFrom(Tickets.class).stream()
                .filter(s -> s.name().equals("openTicket")).findFirst().orElseThrow());
        assertThat(open.inputSchema().get("properties")).isEqualTo(expected.get("properties"));
        assertThat(open.inputSchema().get("required")).isEqualTo(expected.get("required"));
        assertThat(open.inputSchema().get("properties").get("priority").get("type").asString()).isEqualTo("integer");
        assertThat(open.effect()).isEqualTo(Effect.MUTATE);
        assertThat(open.description()).isEqualTo("Open a ticket");
    }

    @Test
    void aReadRunsAndAMutationIsProposedThenAppliedWithTheStoredArguments() {
        Tickets tickets = new Tickets();
        gate(tickets(tickets));
        CallContext context = CallContext.of(alice);

        CallResult found = gate.call(context, "tickets.findTickets", "{\"text\":\"Printer\"}");
        assertThat(((Executed) found).result().get(0).asString()).isEqualTo("Printer jam");

        Proposal proposal = (Proposal) gate.call(context, "tickets.openTicket", "{\"title\":\"VPN down\",\"priority\":2}");
        assertThat(proposal.summary()).contains("previews the arguments only").contains("VPN down");
        assertThat(tickets.titles).containsExactly("Printer jam");

        Applied applied = gate.apply(context, proposal.token());
        assertThat(applied.result().asString()).isEqualTo("opened VPN down at priority 2");
        assertThat(tickets.titles).containsExactly("Printer jam", "VPN down");
    }

    @Test
    void invalidArgumentsAreRefusedByTheKeptSchemaBeforeTheMethodRuns() {
        Tickets tickets = new Tickets();
        gate(tickets(tickets));
        assertThatThrownBy(() -> gate.call(CallContext.of(alice), "tickets.openTicket", "{\"title\":\"x\"}"))
                .isInstanceOf(dev.toolgate.tool.ToolValidationException.class);
        assertThat(tickets.titles).hasSize(1);
    }

    @Test
    void theGovernedAnnotationDeclaresEffectAndRules() {
        Admin admin = new Admin();
        gate(tickets(new Tickets()), LangChain4jTools.plugin("admin").add(admin).build());
        assertThat(gate.listTools(alice)).extracting(ToolDescriptor::name)
                .containsExactly("tickets.findTickets", "tickets.openTicket");
        Principal root = Principal.user("root", "admin");
        ToolDescriptor purge = gate.listTools(root).get(0);
        assertThat(purge.name()).isEqualTo("admin.purge_all");
        assertThat(purge.effect()).isEqualTo(Effect.DESTRUCTIVE);
        Proposal proposal = (Proposal) gate.call(CallContext.of(root), "admin.purge_all", "{}");
        assertThat(admin.purged).isZero();
        gate.apply(CallContext.of(root), proposal.token());
        assertThat(admin.purged).isOne();
    }

    interface Helpdesk {
        String chat(String message);
    }

    @Test
    void bothDirectionsTogetherInAiServices() {
        Tickets tickets = new Tickets();
        gate(tickets(tickets));
        List<Proposal> proposals = new CopyOnWriteArrayList<>();
        ScriptedChatModel model = new ScriptedChatModel(
                call("tickets__openTicket", "{\"title\":\"VPN down\",\"priority\":2}"));
        Helpdesk helpdesk = AiServices.builder(Helpdesk.class).chatModel(model)
                .toolProvider(ToolgateToolProvider.builder(gate).principal(request -> alice).onProposal(proposals::add)
                        .build())
                .build();
        helpdesk.chat("The VPN is down");
        assertThat(Json.parse(model.toolResultsSeen().get(0)).get("status").asString()).isEqualTo("awaiting_user");
        assertThat(tickets.titles).containsExactly("Printer jam");
        gate.apply(CallContext.of(alice), proposals.get(0).token());
        assertThat(tickets.titles).containsExactly("Printer jam", "VPN down");
    }
}
