package dev.toolgate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import dev.toolgate.testkit.TestPostgres;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientCustomizer;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.core.context.SecurityContextHolder;
import tools.jackson.databind.JsonNode;

/**
 * Two instances of one Spring Boot application, each with its own pool, on one PostgreSQL: a chat on
 * the first proposes, an operator approves in the second's console, the chat's next turn on the first
 * is told the result; and two operators approving one card at once on the two instances apply it once.
 */
class TwoInstancesPostgresTest {

    static {
        ClassesStartedFirst.now();
    }

    private static ConfigurableApplicationContext a;
    private static ConfigurableApplicationContext b;

    @BeforeAll
    static void start() {
        String url = TestPostgres.freshSchema("starter_two");
        a = run(url);
        b = run(url);
    }

    private static ConfigurableApplicationContext run(String url) {
        return new SpringApplication(WebMountTest.App.class).run("--server.port=0", "--spring.datasource.url=" + url,
                "--toolgate.discover-plugins=false", "--toolgate.console.enabled=true", "--toolgate.console.secure-cookie=false");
    }

    @AfterAll
    static void stop() {
        if (a != null) {
            a.close();
        }
        if (b != null) {
            b.close();
        }
    }

    @AfterEach
    void signOut() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void approvedOnOneInstanceToldOnTheOther() throws Exception {
        int before = a.getBean(Incidents.class).created.get() + b.getBean(Incidents.class).created.get();
        Scripted model = new Scripted();
        ChatClient.Builder builder = ChatClient.builder(model);
        a.getBean(ChatClientCustomizer.class).customize(builder);
        ChatClient chat = builder.build();

        PrincipalMappingTest.signIn("ana", "incident.read", "incident.write");
        model.next = List.of(new AssistantMessage.ToolCall("c1", "function", "incident__create", "{\"title\":\"db down\"}"));
        chat.prompt("open it").advisors(p -> p.param(ChatMemory.CONVERSATION_ID, "conv-1")).call().content();
        assertThat(model.answers).hasSize(1);
        JsonNode proposed = Json.parse(model.answers.get(0));
        assertThat(proposed.path("status").asString()).isEqualTo("awaiting_operator");
        String callId = proposed.path("proposalId").asString();

        Console console = Console.signIn(b, "olga", "olga-secret");
        HttpResponse<String> approved = console.approve(callId);
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(200);

        model.next = List.of();
        chat.prompt("any news?").advisors(p -> p.param(ChatMemory.CONVERSATION_ID, "conv-1")).call().content();
        assertThat(model.lastUserText).contains("\"decision\":\"applied\"").contains(callId);
        int after = a.getBean(Incidents.class).created.get() + b.getBean(Incidents.class).created.get();
        assertThat(after - before).isEqualTo(1);
    }

    @Test
    void twoOperatorsApprovingOneCardAtOnceOnTwoInstancesApplyItOnce() throws Exception {
        Toolgate gateA = a.getBean(Toolgate.class);
        dev.toolgate.call.Proposal proposal = (dev.toolgate.call.Proposal) gateA.call(
                CallContext.of(dev.toolgate.access.Principal.user("ana", "incident.write")).withSession("conv-2"),
                "incident.create", "{\"title\":\"race\"}");
        int before = a.getBean(Incidents.class).created.get() + b.getBean(Incidents.class).created.get();
        Console olga = Console.signIn(a, "olga", "olga-secret");
        Console oscar = Console.signIn(b, "oscar", "oscar-secret");
        CyclicBarrier together = new CyclicBarrier(2);
        CompletableFuture<HttpResponse<String>> first = CompletableFuture.supplyAsync(() -> olga.approveAt(together, proposal.callId()));
        CompletableFuture<HttpResponse<String>> second = CompletableFuture.supplyAsync(() -> oscar.approveAt(together, proposal.callId()));
        List<String> outcomes = new ArrayList<>();
        for (HttpResponse<String> response : List.of(first.get(), second.get())) {
            outcomes.add(response.statusCode() == 200 ? Json.parse(response.body()).path("outcome").asString() : "refused " + response.statusCode());
        }
        assertThat(outcomes).containsOnlyOnce("approved");
        assertThat(outcomes.stream().filter(o -> o.startsWith("refused"))).hasSize(1);
        int after = a.getBean(Incidents.class).created.get() + b.getBean(Incidents.class).created.get();
        assertThat(after - before).isEqualTo(1);
    }

    /** One operator's console session on one instance, over HTTP. */
    record Console(int port, String user, String secret, String cookie, String csrf) {

        static Console signIn(ConfigurableApplicationContext app, String user, String secret) throws Exception {
            int port = ((WebServerApplicationContext) app).getWebServer().getPort();
            HttpResponse<String> session = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://localhost:" + port + "/toolgate/api/session"))
                    .header("Authorization", WebMountTest.basic(user, secret)).GET().build(), HttpResponse.BodyHandlers.ofString());
            assertThat(session.statusCode()).as(session.body()).isEqualTo(200);
            return new Console(port, user, secret, session.headers().firstValue("Set-Cookie").orElseThrow().split(";", 2)[0],
                    Json.parse(session.body()).path("csrf").asString());
        }

        HttpResponse<String> approve(String callId) throws Exception {
            return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                            URI.create("http://localhost:" + port + "/toolgate/api/inbox/" + callId + "/approve"))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).header("Content-Type", "application/json")
                    .header("Origin", "http://localhost:" + port).header("X-Toolgate-Csrf", csrf).header("Cookie", cookie)
                    .header("Authorization", WebMountTest.basic(user, secret)).build(), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<String> approveAt(CyclicBarrier barrier, String callId) {
            try {
                barrier.await();
                return approve(callId);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** A model whose next response sends the given tool calls; it keeps what it was answered and told. */
    static final class Scripted implements ChatModel {
        volatile List<AssistantMessage.ToolCall> next = List.of();
        final List<String> answers = new ArrayList<>();
        volatile String lastUserText = "";

        @Override
        public ChatOptions getOptions() {
            return ToolCallingChatOptions.builder().build();
        }

        @Override
        public ChatResponse call(Prompt prompt) {
            if (prompt.getInstructions().get(prompt.getInstructions().size() - 1) instanceof ToolResponseMessage responses) {
                responses.getResponses().forEach(r -> answers.add(r.responseData()));
                return new ChatResponse(List.of(new Generation(new AssistantMessage("ok"))));
            }
            lastUserText = prompt.getUserMessage().getText();
            List<AssistantMessage.ToolCall> calls = next;
            next = List.of();
            return new ChatResponse(List.of(new Generation(calls.isEmpty() ? new AssistantMessage("nothing")
                    : AssistantMessage.builder().content("").toolCalls(calls).build())));
        }
    }
}
