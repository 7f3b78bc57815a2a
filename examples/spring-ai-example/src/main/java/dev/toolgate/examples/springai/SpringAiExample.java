package dev.toolgate.examples.springai;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.gate.Applied;
import dev.toolgate.gate.CallContext;
import dev.toolgate.json.Json;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.springai.ToolgateToolCallbacks;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;

/**
 * A plain Spring AI {@link ChatClient} with governed tools: a read runs, a create comes back to the
 * model as a proposal and changes nothing until the host applies it, and a user without the write
 * rule is not even offered the create tool.
 *
 * <p>Run: {@code ./mvnw -q -pl examples/spring-ai-example -am compile exec:java}
 */
public final class SpringAiExample {

    record NewIncident(String title, String severity) {
    }

    record Query(String severity) {
    }

    record Incident(String id, String title, String severity) {
    }

    private SpringAiExample() {
    }

    public static void main(String[] args) {
        Map<String, Incident> incidents = new ConcurrentHashMap<>();
        incidents.put("INC-1", new Incident("INC-1", "disk full on db-2", "high"));

        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .tools("incident", tools(incidents).toArray(new Tool<?, ?>[0])).build()) {
            Principal ana = Principal.user("ana", "incident.read", "incident.write");
            Principal bo = Principal.user("bo", "incident.read");
            AtomicReference<Principal> current = new AtomicReference<>(ana);

            // the adoption: one provider, asked per request for the current user's tools
            AtomicReference<String> lastProposal = new AtomicReference<>(); // the host's confirm card
            ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get)
                    .onProposal(proposal -> lastProposal.set(proposal.callId())).build();

            System.out.println("1. ana asks for high incidents");
            System.out.println(ask(new ScriptedModel("incident__list", "{\"severity\":\"high\"}"), tools));

            System.out.println("\n2. ana asks to open an incident: the model gets a proposal, nothing is created");
            System.out.println(ask(new ScriptedModel("incident__create", "{\"title\":\"VPN down\",\"severity\":\"high\"}"), tools));
            System.out.println("   incidents now: " + incidents.keySet());

            // the host showed the summary to ana and she agreed; the model saw the same proposalId, never the token
            String proposalId = lastProposal.get();
            Applied applied = tools.apply(CallContext.of(ana), proposalId);
            System.out.println("\n3. ana applied " + proposalId + ": " + Json.write(applied.result()));
            System.out.println("   incidents now: " + incidents.keySet());

            current.set(bo);
            System.out.println("\n4. bo (read only) asks to open an incident: the tool is not offered to the model");
            System.out.println(ask(new ScriptedModel("incident__create", "{\"title\":\"x\",\"severity\":\"low\"}"), tools));
        }
    }

    private static String ask(ChatModel model, ToolgateToolCallbacks tools) {
        return "   " + ChatClient.create(model).prompt("help with incidents").toolCallbacks(tools).call().content();
    }

    private static List<Tool<?, ?>> tools(Map<String, Incident> incidents) {
        Tool<?, ?> list = Tool.builder("list", Query.class).description("Lists incidents of one severity")
                .effect(Effect.READ).requires("incident.read")
                .execute((Query q, ToolContext c) -> incidents.values().stream()
                        .filter(i -> i.severity().equals(q.severity())).toList())
                .build();
        Tool<?, ?> create = Tool.builder("create", NewIncident.class).description("Opens an incident")
                .effect(Effect.MUTATE).requires("incident.write")
                .dryRun((NewIncident in, ToolContext c) -> Preview.<NewIncident>of("Open incident '" + in.title() + "'"))
                .execute((NewIncident in, ToolContext c) -> {
                    Incident incident = new Incident("INC-" + (incidents.size() + 1), in.title(), in.severity());
                    incidents.put(incident.id(), incident);
                    return incident;
                })
                .build();
        return List.of(list, create);
    }
}
