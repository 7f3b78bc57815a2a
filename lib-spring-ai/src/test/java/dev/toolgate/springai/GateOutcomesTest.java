package dev.toolgate.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.spi.InMemoryStore;
import dev.toolgate.tool.Tool;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import tools.jackson.databind.JsonNode;

/** The gate's other outcomes through the adapter: denial, a forbidden applier, destructive tools, held tokens. */
class GateOutcomesTest {

    private final Incidents incidents = new Incidents();
    private final Principal admin = Principal.user("root", Incidents.READ, Incidents.WRITE, Incidents.ADMIN,
            "toolgate.approvals.manage");
    private final Principal reader = Principal.user("bo", Incidents.READ);
    private final Toolgate gate = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
            .budget(ToolBudget.unlimited()).tools("incident", incidents.tools().toArray(new Tool<?, ?>[0])).build();

    @AfterEach
    void close() {
        gate.close();
    }

    private JsonNode callThroughChatClient(ToolgateToolCallbacks tools, String tool, String arguments) {
        ScriptedChatModel model = ScriptedChatModel.calling(new ScriptedChatModel.Call(tool, arguments));
        ChatClient.create(model).prompt("go").toolCallbacks(tools).call().content();
        List<String> results = model.toolResults();
        assertThat(results).hasSize(1);
        return Json.parse(results.get(0));
    }

    @Test
    void aPolicyDenialIsAResultTheModelReads() {
        gate.setMode(CallContext.of(admin).withTenant("acme"), OverrideScope.TENANT, "incident.create", Mode.DENY);
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> admin)
                .context((ctx, toolContext) -> ctx.withTenant("acme")).build();

        JsonNode denied = callThroughChatClient(tools, "incident__create", "{\"title\":\"t\",\"severity\":\"low\"}");

        assertThat(denied.path("status").asString()).isEqualTo("denied");
        assertThat(denied.path("message").asString()).contains("Do not retry");
        assertThat(incidents.executions).hasValue(0);
    }

    @Test
    void aDestructiveToolIsProposedAndAnApplierWithoutTheRuleIsRefusedKeepingTheToken() {
        incidents.byId.put("INC-1", new Incidents.Incident("INC-1", "a", "low"));
        List<Proposal> cards = new CopyOnWriteArrayList<>();
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> admin).onProposal(cards::add).build();

        JsonNode proposal = callThroughChatClient(tools, "incident__purge", "{\"severity\":\"low\"}");

        assertThat(proposal.path("status").asString()).isEqualTo("awaiting_user");
        assertThat(proposal.path("effect").asString()).isEqualTo("destructive");
        assertThat(incidents.byId).hasSize(1);
        String id = proposal.path("proposalId").asString();
        assertThatThrownBy(() -> tools.apply(CallContext.of(reader), id)).isInstanceOf(ForbiddenException.class);
        assertThat(incidents.byId).hasSize(1);
        assertThat(tools.heldTokens()).as("a refused applier does not burn the token").isEqualTo(1);

        tools.apply(CallContext.of(admin), id);
        assertThat(incidents.byId).isEmpty();
    }

    @Test
    void heldTokensExpireAndStayWithinTheirCap() {
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        HeldTokens held = new HeldTokens(2, Clock.fixed(now, ZoneOffset.UTC));
        held.hold(proposal("p1", now.plusSeconds(30)));
        held.hold(proposal("p2", now.minusSeconds(1)));
        held.hold(proposal("p3", now.plusSeconds(60)));

        assertThat(held.size()).isEqualTo(2);
        assertThat(held.peek("p2")).isEmpty();
        assertThat(held.peek("p1")).contains("propose:p1.n");
        held.hold(proposal("p4", now.plusSeconds(90)));
        assertThat(held.size()).isEqualTo(2);
        assertThat(held.peek("p1")).as("the soonest to expire made room").isEmpty();
        assertThat(held.peek("p4")).contains("propose:p4.n");
        assertThat(held.peek(null)).isEmpty();
    }

    private Proposal proposal(String id, Instant expiresAt) {
        Proposal real = (Proposal) gate.call(CallContext.of(admin), "incident.create", "{\"title\":\"t\",\"severity\":\"low\"}");
        return new Proposal(id, real.toolName(), real.effect(), "propose:" + id + ".n", real.summary(), real.payload(),
                real.diff(), expiresAt, real.mode());
    }

    @Test
    void aToolThatThrowsIsAFailedResultNotAnException() {
        Tool<?, ?> broken = Tool.builder("broken", dev.toolgate.tool.NoInput.class).description("fails")
                .effect(dev.toolgate.tool.Effect.READ)
                .execute((dev.toolgate.tool.NoInput in, dev.toolgate.tool.ToolContext c) -> {
                    throw new IllegalStateException("disk on fire");
                }).build();
        try (Toolgate other = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).tools("ops", broken).build()) {
            ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(other).principal(() -> reader).build();
            JsonNode failed = callThroughChatClient(tools, "ops__broken", "{}");
            assertThat(failed.path("status").asString()).isEqualTo("failed");
            assertThat(failed.path("tool").asString()).isEqualTo("ops__broken");
        }
    }

    @Test
    void theProposalsStatusSaysWhoConsentsAndOperatorConsentNeverShowsTheToken() {
        assertThatThrownBy(() -> ToolgateToolCallbacks.builder(gate).principal(() -> admin)
                .consent(dev.toolgate.call.Consent.OPERATOR).showTokenToModel(true).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("OPERATOR");
        JsonNode byDefault = callThroughChatClient(ToolgateToolCallbacks.builder(gate).principal(() -> admin).build(),
                "incident__create", "{\"title\":\"t\",\"severity\":\"low\"}");
        assertThat(byDefault.path("status").asString()).as("nobody shows the user a card: an operator decides")
                .isEqualTo("awaiting_operator");
        assertThat(byDefault.path("next").asString()).contains("operator");
        JsonNode user = callThroughChatClient(ToolgateToolCallbacks.builder(gate).principal(() -> admin)
                .consent(dev.toolgate.call.Consent.USER).build(), "incident__create", "{\"title\":\"u\",\"severity\":\"low\"}");
        assertThat(user.path("status").asString()).isEqualTo("awaiting_user");
        assertThat(user.has("token")).isFalse();
        assertThat(incidents.executions).hasValue(0);
    }

    @Test
    void aToolThatStartsARunAnswersWithTheRunsStatus() {
        dev.toolgate.execution.Program program = run -> run.call("incident.create",
                java.util.Map.of("title", "from a run", "severity", "low"));
        Toolgate[] holder = new Toolgate[1];
        Tool<dev.toolgate.tool.NoInput, ?> batch = Tool.builder("batch", dev.toolgate.tool.NoInput.class).description("d")
                .effect(dev.toolgate.tool.Effect.MUTATE).standingApproval()
                .execute((in, ctx) -> holder[0].executions().start(CallContext.of(ctx.principal()), "incident.batch",
                        Json.object()).toJson()).build();
        List<Tool<?, ?>> all = new java.util.ArrayList<>(incidents.tools());
        all.add(batch);
        try (Toolgate runs = Toolgate.builder().discoverTools(false).discoverComponents(false).store(new InMemoryStore())
                .budget(ToolBudget.unlimited()).tools("incident", all.toArray(new Tool<?, ?>[0]))
                .program("incident.batch", program).build()) {
            holder[0] = runs;
            JsonNode answer = callThroughChatClient(ToolgateToolCallbacks.builder(runs).principal(() -> admin).build(),
                    "incident__batch", "{}");
            assertThat(answer.path("status").asString()).isEqualTo("paused");
            assertThat(answer.path("awaiting").asString()).isEqualTo("operator");
            assertThat(answer.has("executionId") && answer.has("callId")).isTrue();
            assertThat(incidents.executions).hasValue(0);
        }
    }

    @Test
    void aPrincipalResolverThatFailsWithASecretInItsMessageLeavesNoneInTheLog() {
        ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate).principal(() -> {
            throw new IllegalStateException("directory down: password=hunter2 " + "x".repeat(50_000));
        }).build();
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            ChatClient.builder(ScriptedChatModel.calling()).defaultAdvisors(tools.advisor()).build().prompt("hi").call().content();
        } finally {
            System.setErr(err);
        }
        String log = captured.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(log).contains("could not be resolved").contains("password=[REDACTED]").doesNotContain("hunter2");
        assertThat(log.lines().mapToInt(String::length).max().orElse(0)).as("the longest logged line")
                .isLessThan(5_000);
    }

    @Test
    void aStoreOutageIsAResultTheModelCanRelayAndNothingRuns() {
        dev.toolgate.testkit.FlakyStore store = new dev.toolgate.testkit.FlakyStore(new InMemoryStore());
        try (Toolgate flaky = Toolgate.builder().discoverTools(false).discoverComponents(false).store(store)
                .budget(ToolBudget.perPrincipal(100, java.time.Duration.ofMinutes(1))).tools("incident", incidents.tools().toArray(new Tool<?, ?>[0])).build()) {
            ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(flaky).principal(() -> admin).build();
            store.fail(new dev.toolgate.spi.StoreUnavailableException("Toolgate store unavailable: the database is shutting down"
                    + " (terminating connection due to administrator command)", null, dev.toolgate.spi.StoreFault.SHUTTING_DOWN,
                    java.time.Duration.ofSeconds(3)));

            JsonNode refused = callThroughChatClient(tools, "incident__list", "{\"severity\":\"low\"}");

            assertThat(refused.path("status").asString()).isEqualTo("unavailable");
            assertThat(refused.path("kind").asString()).isEqualTo("store");
            assertThat(refused.path("fault").asString()).isEqualTo("SHUTTING_DOWN");
            assertThat(refused.path("retryAfterSeconds").asLong()).isEqualTo(3);
            assertThat(refused.path("message").asString()).contains("Try again in 3 s").doesNotContain("administrator");
            assertThat(incidents.reads).as("a read that cannot be metered does not run").hasValue(0);

            store.heal();
            assertThat(callThroughChatClient(tools, "incident__list", "{\"severity\":\"low\"}").path("status").asString())
                    .isEqualTo("executed");
        }
    }
}
