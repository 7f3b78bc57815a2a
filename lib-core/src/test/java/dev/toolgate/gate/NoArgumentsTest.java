package dev.toolgate.gate;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.json.CanonicalJson;
import dev.toolgate.json.Json;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolValidationException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A call with no arguments ({@code {}}, the usual call of a read) takes a shortcut: its canonical form
 * and hash are known in advance and the verdict of the tool's schema on it is remembered. It must be
 * recorded and judged exactly as any other call.
 */
class NoArgumentsTest {

    record Lookup(String key) {
    }

    private static Toolgate gate() {
        Tool<NoInput, String> ping = Tool.builder("ping", NoInput.class).description("Answers pong").effect(Effect.READ)
                .execute((in, ctx) -> in == null ? "null input" : "pong").build();
        Tool<Lookup, String> lookup = Tool.builder("lookup", Lookup.class).description("Looks a key up").effect(Effect.READ)
                .execute((in, ctx) -> "value of " + in.key()).build();
        return Toolgate.builder().discoverComponents(false).discoverTools(false).sweepInterval(Duration.ZERO)
                .provider(ToolProvider.of("t", ping, lookup)).build();
    }

    @Test
    void noArgumentsAreHashedAsTheirCanonicalFormAndJudgedByTheSchema() {
        String expected = CanonicalJson.sha256Hex("{}".getBytes(StandardCharsets.UTF_8));
        assertThat(Preparation.NO_ARGUMENTS_HASH).isEqualTo(expected).isEqualTo(CanonicalJson.sha256Hex(Json.object()));
        CallContext ctx = CallContext.of(Principal.user("u"));
        try (Toolgate gate = gate()) {
            for (Object arguments : new Object[] {"{}", " { } ", Json.object(), null}) {
                CallResult result = arguments instanceof String json ? gate.call(ctx, "t.ping", json)
                        : gate.call(ctx, "t.ping", (tools.jackson.databind.JsonNode) arguments);
                assertThat(result).as("arguments %s", arguments).isInstanceOf(Executed.class);
                Executed executed = (Executed) result;
                assertThat(executed.result().asString()).isEqualTo("pong");
                assertThat(gate.findCall(executed.callId()).orElseThrow().argumentsHash()).as("arguments %s", arguments)
                        .isEqualTo(expected);
            }
            // arguments a tool without any refuses, every time
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(() -> gate.call(ctx, "t.ping", "{\"x\":1}")).isInstanceOf(ToolValidationException.class)
                        .hasMessageContaining("/x");
            }
            // a tool that needs arguments refuses none, every time, and is judged afresh on some
            for (int i = 0; i < 2; i++) {
                assertThatThrownBy(() -> gate.call(ctx, "t.lookup", "{}")).isInstanceOf(ToolValidationException.class)
                        .hasMessageContaining("key");
            }
            Executed found = (Executed) gate.call(ctx, "t.lookup", "{\"key\":\"k\"}");
            assertThat(found.result().asString()).isEqualTo("value of k");
            assertThat(gate.findCall(found.callId()).orElseThrow().argumentsHash())
                    .isEqualTo(CanonicalJson.sha256Hex(Json.parse("{\"key\":\"k\"}")));
        }
    }
}
