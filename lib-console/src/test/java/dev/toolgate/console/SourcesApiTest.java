package dev.toolgate.console;

import static dev.toolgate.console.ConsoleFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.Proposal;
import dev.toolgate.json.Json;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.source.SourceContext;
import dev.toolgate.source.SourceTool;
import dev.toolgate.source.ToolSource;
import dev.toolgate.tool.Effect;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The sources page: which sources answer, which tools drifted, and re-confirming a drifted schema. */
class SourcesApiTest {

    private static final ObjectNode TEXT = (ObjectNode) Json.parse(
            "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}");
    private static final ObjectNode WIDER = (ObjectNode) Json.parse("{\"type\":\"object\",\"properties\":{\"text\":"
            + "{\"type\":\"string\"},\"force\":{\"type\":\"boolean\"}},\"required\":[\"text\"]}");

    /** A source in memory whose tools can change and which can go down. */
    static final class Ops implements ToolSource {
        volatile List<SourceTool> tools = List.of(SourceTool.of("restart", "Restart a service.", Effect.MUTATE, TEXT));
        volatile boolean down;

        @Override
        public String id() {
            return "mcp:ops";
        }

        @Override
        public String displayName() {
            return "Ops tools";
        }

        @Override
        public List<SourceTool> listTools(SourceContext context) {
            if (down) {
                throw new IllegalStateException("connection refused");
            }
            return tools;
        }

        @Override
        public JsonNode callTool(String tool, JsonNode arguments, SourceContext context) {
            return Json.object().put("restarted", true);
        }

        @Override
        public void close() {
        }
    }

    private final Ops ops = new Ops();
    private final ConsoleFixture fx = new ConsoleFixture(b -> b.source(ops).policyCacheTtl(Duration.ZERO)
            .sourceTimings(Duration.ofMinutes(5), Duration.ofMillis(500), Duration.ofSeconds(5)), c -> { });

    @AfterEach
    void close() {
        fx.close();
    }

    @Test
    void sourcesShowWhetherTheyAnswerAndDriftedToolsCanBeConfirmed() {
        fx.tenant = "acme";
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        CallContext operator = CallContext.of(ConsoleFixture.ALICE).withTenant("acme");
        fx.gate.setMode(operator, OverrideScope.TENANT, "mcp:ops.restart", Mode.ALLOW);

        JsonNode page = json(alice.get("/api/sources"));
        JsonNode source = page.get("sources").get(0);
        assertThat(source.get("id").asString()).isEqualTo("mcp:ops");
        assertThat(source.get("displayName").asString()).isEqualTo("Ops tools");
        assertThat(source.get("state").asString()).isEqualTo("available");
        assertThat(source.get("tools").asInt()).isEqualTo(1);
        assertThat(page.get("drifted")).isEmpty();

        ops.tools = List.of(SourceTool.of("restart", "Restart a service.", Effect.MUTATE, WIDER));
        ConsoleResponse refreshed = alice.post("/api/sources/refresh", "{}");
        assertThat(refreshed.status()).isEqualTo(200);
        JsonNode drifted = json(refreshed).get("drifted");
        assertThat(drifted).hasSize(1);
        assertThat(drifted.get(0).get("tool").asString()).isEqualTo("mcp:ops.restart");
        assertThat(drifted.get(0).get("source").asString()).isEqualTo("mcp:ops");
        assertThat(drifted.get(0).get("mode").asString()).as("a drifted ALLOW asks a person").isEqualTo("require_approval");
        CallContext carol = CallContext.of(ConsoleFixture.CAROL).withTenant("acme").withSession("s1");
        assertThat(fx.gate.call(carol, "mcp:ops.restart", "{\"text\":\"api\",\"force\":true}")).isInstanceOf(Proposal.class);

        ConsoleFixture.Client bob = fx.client().signedIn("bob");
        assertThat(bob.post("/api/drift/confirm", "{\"tool\":\"mcp:ops.restart\"}").status()).isEqualTo(403);
        assertThat(alice.post("/api/drift/confirm", "{\"tool\":\"mcp:nope.x\"}").status()).isEqualTo(404);
        assertThat(alice.post("/api/drift/confirm", "{}").status()).isEqualTo(400);
        assertThat(json(alice.get("/api/sources")).get("drifted")).as("nothing changed yet").hasSize(1);

        ConsoleResponse confirmed = alice.post("/api/drift/confirm", "{\"tool\":\"mcp:ops.restart\"}");
        assertThat(confirmed.status()).as(confirmed.bodyText()).isEqualTo(200);
        assertThat(json(alice.get("/api/sources")).get("drifted")).isEmpty();
        assertThat(fx.gate.call(carol, "mcp:ops.restart", "{\"text\":\"api\",\"force\":true}").status())
                .as("the reviewed ALLOW applies again").isEqualTo("applied");

        ops.down = true;
        JsonNode down = json(alice.post("/api/sources/refresh", "{}")).get("sources").get(0);
        assertThat(down.get("state").asString()).isEqualTo("unavailable");
        assertThat(down.get("error").asString()).contains("connection refused");
    }
}
