package dev.toolgate.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Executed;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool's channel back to its client outside MCP, and how the gate carries a transport's channel to
 * the execution only (never to a dry-run), and a content result through the gate.
 */
class ClientChannelTest {

    private static final ObjectNode SCHEMA = (ObjectNode) Json.parse("{\"type\":\"object\",\"properties\":{}}");

    /** A channel that records what a tool sends, as a transport's would. */
    static final class Recording implements ClientChannel {
        final List<String> sent = new CopyOnWriteArrayList<>();

        @Override
        public void progress(double progress, Double total, String message) {
            sent.add("progress " + progress);
        }

        @Override
        public void log(LogLevel level, String logger, Object data) {
            sent.add("log " + data);
        }

        @Override
        public boolean canSample() {
            return true;
        }

        @Override
        public boolean canElicit() {
            return true;
        }

        @Override
        public SamplingResult sample(SamplingRequest request) {
            sent.add("sample");
            return new SamplingResult(SamplingRequest.Role.ASSISTANT, Content.text("hi"), "m", "endTurn");
        }

        @Override
        public Elicitation elicit(String message, ObjectNode requestedSchema) {
            sent.add("elicit " + message);
            return new Elicitation(Elicitation.Action.ACCEPT, Json.object().put("ok", true));
        }
    }

    private final List<String> seen = new CopyOnWriteArrayList<>();

    private Toolgate gate() {
        Tool<NoInput, ContentResult> talk = Tool.builder("talk", NoInput.class).description("Talks to the client.").effect(Effect.READ)
                .requires("t.read")
                .execute((in, ctx) -> {
                    ctx.channel().progress(1, 2.0, "half");
                    ctx.channel().log(ClientChannel.LogLevel.INFO, "t", "hello");
                    seen.add("canSample=" + ctx.channel().canSample() + " canElicit=" + ctx.channel().canElicit());
                    try {
                        seen.add("sampled " + ctx.channel().sample(SamplingRequest.ask("q", 10)).text());
                    } catch (ClientInteractionUnsupportedException e) {
                        seen.add("sampling refused: " + e.reason());
                    }
                    try {
                        seen.add("elicited " + ctx.channel().elicit("q?", SCHEMA).action());
                    } catch (ClientInteractionUnsupportedException e) {
                        seen.add("elicitation refused: " + e.interaction());
                    }
                    return ContentResult.of(Content.text("done"), Content.image(new byte[] {1, 2, 3}, "image/png"));
                }).build();
        Tool<NoInput, ContentResult> change = Tool.builder("change", NoInput.class).description("Changes something.")
                .effect(Effect.MUTATE).requires("t.write")
                .dryRun((in, ctx) -> {
                    ctx.channel().progress(1, null, null);
                    try {
                        ctx.channel().elicit("from a dry-run", SCHEMA);
                        return Preview.of("ASKED");
                    } catch (ClientInteractionUnsupportedException e) {
                        return Preview.of("refused: " + e.reason());
                    }
                })
                .execute((in, ctx) -> ContentResult.of(Content.text("changed after " + ctx.channel().elicit("sure?", SCHEMA).action())))
                .build();
        return Toolgate.builder().discoverTools(false).discoverComponents(false).budget(ToolBudget.unlimited())
                .sweepInterval(Duration.ZERO).tools("t", talk, change).build();
    }

    @Test
    void outsideMcpProgressAndLogDoNothingAndRequestsAreRefusedTyped() {
        try (Toolgate gate = gate()) {
            Executed executed = (Executed) gate.call(CallContext.of(Principal.user("u", "t.read")), "t.talk", "{}");
            assertThat(seen).containsExactly("canSample=false canElicit=false",
                    "sampling refused: the call did not come from an MCP client (plain Java, code mode or another transport)",
                    "elicitation refused: elicitation");
            assertThat(executed.content().content()).hasSize(2);
            assertThat(executed.result().path("content").get(1).path("bytes").asInt()).isEqualTo(3);
            assertThat(Json.write(executed.result())).doesNotContain("AQID");
            assertThat(((Content.Image) executed.content().content().get(1)).data()).isEqualTo("AQID");
        }
    }

    @Test
    void aTransportsChannelReachesTheExecutionButNeverTheDryRun() {
        Recording channel = new Recording();
        try (Toolgate gate = gate()) {
            CallContext context = CallContext.of(Principal.user("u", "t.read", "t.write")).withChannel(channel);
            gate.call(context, "t.talk", "{}");
            assertThat(channel.sent).containsExactly("progress 1.0", "log hello", "sample", "elicit q?");
            assertThat(seen).contains("sampled hi", "elicited ACCEPT");

            channel.sent.clear();
            Proposal proposal = (Proposal) gate.call(context, "t.change", "{}");
            assertThat(proposal.summary()).isEqualTo("refused: a dry-run must not talk to the user before consent");
            assertThat(channel.sent).isEmpty();
            Applied applied = gate.apply(context, proposal.token());
            assertThat(channel.sent).containsExactly("elicit sure?");
            assertThat(((Content.Text) applied.content().content().get(0)).text()).isEqualTo("changed after ACCEPT");
        }
    }

    @Test
    void toolContextKeepsItsSevenArgumentConstructorAndADryRunNeverGetsAChannel() {
        ToolContext plain = new ToolContext("c", Principal.user("u"), null, null, null, "java", ToolContext.Phase.EXECUTE);
        assertThat(plain.channel()).isSameAs(ClientChannel.none());
        ToolContext dryRun = new ToolContext("c", Principal.user("u"), null, null, null, "mcp", ToolContext.Phase.DRY_RUN,
                new Recording());
        assertThat(dryRun.channel()).isNotInstanceOf(Recording.class);
        ClientInteractionUnsupportedException e = catchThrowableOfType(ClientInteractionUnsupportedException.class,
                () -> dryRun.channel().sample(SamplingRequest.ask("q", 1)));
        assertThat(e.interaction()).isEqualTo("sampling");
        assertThat(CallContext.of(Principal.user("u")).channel()).isSameAs(ClientChannel.none());
    }
}
