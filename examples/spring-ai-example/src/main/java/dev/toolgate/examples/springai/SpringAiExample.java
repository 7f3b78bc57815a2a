package dev.toolgate.examples.springai;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.GateSettings;
import dev.toolgate.call.PendingProposal;
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
import org.springframework.ai.chat.memory.ChatMemory;

/**
 * A plain Spring AI {@link ChatClient} with governed tools and Toolgate's advisor, which makes the consent
 * loop whole: the model sends several tool calls in one response (a read, a create, the create again, a
 * tool it was not offered) and gets an answer for each, in order; the create waits for consent and
 * changes nothing; an operator declines it with a reason and the model is told on its next turn; a retry
 * is answered with the decline; a new proposal the user agrees to is applied, and the model is told the
 * result. A read-only user is not offered the create tool, and calling it anyway runs nothing.
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

    private static final String CONVERSATION = "ana-chat-1";

    private SpringAiExample() {
    }

    public static void main(String[] args) {
        Map<String, Incident> incidents = new ConcurrentHashMap<>();
        incidents.put("INC-1", new Incident("INC-1", "disk full on db-2", "high"));

        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .tools("incident", tools(incidents).toArray(new Tool<?, ?>[0])).build()) {
            Principal ana = Principal.user("ana", "incident.read", "incident.write");
            Principal bo = Principal.user("bo", "incident.read");
            CallContext operator = CallContext.of(Principal.user("olga", "incident.read", "incident.write",
                    GateSettings.DEFAULT_APPROVER_RULE));
            AtomicReference<Principal> current = new AtomicReference<>(ana);

            // the adoption: the governed tools, asked per request for the current user, and their advisor
            ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(current::get).build();
            ScriptedModel model = new ScriptedModel(List.of(
                    List.of(call("incident__list", "{\"severity\":\"high\"}"), call("incident__create", VPN_HIGH),
                            call("incident__create", VPN_HIGH), call("incident__delete", "{\"id\":\"INC-1\"}")),
                    List.of(),                                                      // "any news?"
                    List.of(call("incident__create", VPN_HIGH)),                    // the model retries
                    List.of(call("incident__create", "{\"title\":\"VPN down\",\"severity\":\"critical\"}")),
                    List.of(),                                                      // "done?"
                    List.of(call("incident__create", "{\"title\":\"x\",\"severity\":\"low\"}"))));
            ChatClient chat = ChatClient.builder(model).defaultAdvisors(tools.advisor()).build();

            System.out.println("1. ana: open an incident for the VPN and list the high ones (four calls in one response)");
            System.out.println(ask(chat, "open an incident for the VPN and list the high ones"));
            PendingProposal card = gate.pending(operator, CONVERSATION).get(0);
            System.out.println("   one proposal waits, nothing created: " + card.summary() + "; incidents " + incidents.keySet());

            gate.reject(operator, card.callId(), "VPN is tracked as INC-7");
            System.out.println("\n2. olga declines it in the inbox; ana: any news?");
            System.out.println(ask(chat, "any news?"));

            System.out.println("\n3. ana: please just create it (the model retries the declined change)");
            System.out.println(ask(chat, "please just create it"));

            System.out.println("\n4. ana: then make it critical");
            System.out.println(ask(chat, "then make it critical"));
            String proposalId = gate.pending(operator, CONVERSATION).get(0).callId();
            Applied applied = tools.apply(CallContext.of(ana), proposalId); // ana agreed on the host's confirm card
            System.out.println("   ana agrees and the host applies it: " + Json.write(applied.result()));

            System.out.println("\n5. ana: done?");
            System.out.println(ask(chat, "done?"));

            current.set(bo);
            System.out.println("\n6. bo (read only) asks to open an incident: not offered, and calling it anyway runs nothing");
            System.out.println(ask(chat, "open one"));
            System.out.println("   incidents now: " + incidents.keySet());
        }
    }

    private static final String VPN_HIGH = "{\"title\":\"VPN down\",\"severity\":\"high\"}";

    private static ScriptedModel.Call call(String name, String arguments) {
        return new ScriptedModel.Call(name, arguments);
    }

    private static String ask(ChatClient chat, String question) {
        return "   " + chat.prompt(question).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, CONVERSATION)).call().content();
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
