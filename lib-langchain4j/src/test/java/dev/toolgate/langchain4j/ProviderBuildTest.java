package dev.toolgate.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.langchain4j.data.message.UserMessage;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ProviderBuildTest {

    private static Tool<NoInput, Object> tool(String name) {
        return Tool.builder(name, NoInput.class).description("d").effect(Effect.READ)
                .execute((NoInput in, ToolContext ctx) -> {
                    throw new IllegalStateException("backend down");
                }).build();
    }

    @Test
    void aRegistryWhoseNamesCollideOnTheWireIsRefusedAtBuild() {
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false)
                .tools("a_", tool("b")).tools("a", tool("_b")).build()) {
            assertThatThrownBy(() -> ToolgateToolProvider.builder(gate).principal(r -> Principal.user("u")).build())
                    .isInstanceOf(ToolNameException.class).hasMessageContaining("a___b");
        }
    }

    @Test
    void aProviderNeedsAPrincipalFunction() {
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).build()) {
            assertThatThrownBy(() -> ToolgateToolProvider.builder(gate).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("principal");
        }
    }

    @Test
    void aFailingToolIsReportedToTheModelAsAnErrorResultNotThrown() {
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false)
                .tools("svc", tool("status")).build()) {
            ToolgateToolProvider provider = ToolgateToolProvider.builder(gate).principal(r -> Principal.user("u")).build();
            ToolProviderResult result = provider.provideTools(new ToolProviderRequest("m1", UserMessage.from("hi")));
            var executor = result.toolExecutorByName("svc__status");
            var outcome = executor.executeWithContext(
                    ToolExecutionRequest.builder().id("1").name("svc__status").arguments("{}").build(), null);
            assertThat(outcome.isError()).isTrue();
            JsonNode json = Json.parse(outcome.resultText());
            assertThat(json.get("status").asString()).isEqualTo("failed");
            assertThat(json.get("toolName").asString()).isEqualTo("svc.status");

            String malformed = executor.execute(
                    ToolExecutionRequest.builder().id("2").name("svc__status").arguments("{not json").build(), "m1");
            assertThat(Json.parse(malformed).get("status").asString()).isEqualTo("invalid");
        }
    }

    @Test
    void operatorConsentRefusesAnExposedTokenAndTheStatusSaysWhoMustAct() {
        Tool<NoInput, ?> change = Tool.builder("change", NoInput.class).description("d").effect(Effect.MUTATE)
                .execute((NoInput in, ToolContext ctx) -> "done").build();
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).tools("svc", change).build()) {
            assertThatThrownBy(() -> ToolgateToolProvider.builder(gate).principal(r -> Principal.user("u"))
                    .consent(dev.toolgate.call.Consent.OPERATOR).exposeToken(true).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("OPERATOR");
            for (var consent : dev.toolgate.call.Consent.values()) {
                ToolgateToolProvider provider = ToolgateToolProvider.builder(gate).principal(r -> Principal.user("u"))
                        .consent(consent).build();
                var executor = provider.provideTools(new ToolProviderRequest("m-" + consent, UserMessage.from("hi")))
                        .toolExecutorByName("svc__change");
                String text = executor.execute(ToolExecutionRequest.builder().id("1").name("svc__change").arguments("{}").build(),
                        null);
                assertThat(Json.parse(text).get("status").asString()).as("%s", consent).isEqualTo(consent.awaitingStatus());
                assertThat(text).doesNotContain("propose:");
            }
        }
    }

    @Test
    void aToolThatStartsARunAnswersWithTheRunsStatus() {
        dev.toolgate.execution.Program program = run -> run.call("svc.change", java.util.Map.of());
        Tool<NoInput, ?> change = Tool.builder("change", NoInput.class).description("d").effect(Effect.MUTATE)
                .execute((NoInput in, ToolContext ctx) -> "done").build();
        Toolgate[] holder = new Toolgate[1];
        Tool<NoInput, ?> batch = Tool.builder("batch", NoInput.class).description("d").effect(Effect.MUTATE)
                .standingApproval()
                .execute((NoInput in, ToolContext ctx) -> holder[0].executions().start(
                        dev.toolgate.call.CallContext.of(ctx.principal()), "svc.batch", Json.object()).toJson()).build();
        try (Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).tools("svc", change, batch)
                .program("svc.batch", program).build()) {
            holder[0] = gate;
            ToolgateToolProvider provider = ToolgateToolProvider.builder(gate).principal(r -> Principal.user("u")).build();
            var executor = provider.provideTools(new ToolProviderRequest("m1", UserMessage.from("hi")))
                    .toolExecutorByName("svc__batch");
            JsonNode answer = Json.parse(executor.execute(
                    ToolExecutionRequest.builder().id("1").name("svc__batch").arguments("{}").build(), null));
            assertThat(answer.get("status").asString()).isEqualTo("paused");
            assertThat(answer.get("awaiting").asString()).isEqualTo("operator");
            assertThat(answer.has("executionId") && answer.has("callId")).isTrue();
        }
    }
}
