package dev.toolgate.console;

import static dev.toolgate.console.ConsoleFixture.CAROL;
import static dev.toolgate.console.ConsoleFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.Principal;
import dev.toolgate.call.CallContext;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/** The audit page's API: filters, paging, and what it never shows. */
class AuditApiTest {

    private final ConsoleFixture fx = new ConsoleFixture(b -> b.tools("vault", Tool.builder("peek", NoInput.class)
            .description("Shows a service account.").effect(Effect.READ).requires("incident.read")
            .execute((NoInput in, ToolContext ctx) -> Map.of("user", "svc", "password", "hunter2-do-not-show")).build()), c -> { });

    @AfterEach
    void close() {
        fx.close();
    }

    private List<JsonNode> records(ConsoleFixture.Client client, String query) {
        ConsoleResponse r = client.get("/api/audit" + query);
        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        List<JsonNode> list = new ArrayList<>();
        json(r).get("records").forEach(list::add);
        return list;
    }

    @Test
    void recordsShowTheArgumentsOnlyAsTheirHashAndResultsRedactedAsStored() {
        String secretTitle = "TITLE-ONLY-IN-ARGUMENTS-7f3a";
        String callId = fx.carolProposes(secretTitle);
        fx.gate.call(CallContext.of(CAROL).withSession("s-carol"), "vault.peek", "{}");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        assertThat(alice.post("/api/inbox/" + callId + "/approve", "{}").status()).isEqualTo(200);

        ConsoleResponse r = alice.get("/api/audit");
        String body = r.bodyText();
        JsonNode created = json(r).get("records").findParents("callId").stream()
                .filter(n -> n.get("callId").asString().equals(callId)).findFirst().orElseThrow();
        assertThat(created.get("status").asString()).isEqualTo("applied");
        assertThat(created.get("appliedBy").get("id").asString()).isEqualTo("alice");
        assertThat(created.get("argumentsHash").asString()).isEqualTo(fx.gate.findCall(callId).orElseThrow().argumentsHash())
                .matches("[0-9a-f]{64}");
        assertThat(created.has("payload")).isFalse();
        assertThat(created.has("arguments")).isFalse();
        assertThat(body).doesNotContain("hunter2-do-not-show");
        assertThat(body).as("the summary names it, the payload never appears")
                .doesNotContain("\"payload\"");
        String peekResult = fx.gate.findCalls(dev.toolgate.audit.CallQuery.latest(10).tool("vault.peek")).get(0).resultJson();
        assertThat(peekResult).doesNotContain("hunter2");
    }

    @Test
    void filtersByToolPrincipalStatusAndTime() throws Exception {
        String denied = fx.carolProposes("One");
        fx.carolProposes("Two");
        fx.gate.call(CallContext.of(ConsoleFixture.BOB).withSession("s-bob"), "incident.find", "{}");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        assertThat(alice.post("/api/inbox/" + denied + "/deny", "{\"reason\":\"no\"}").status()).isEqualTo(200);

        assertThat(records(alice, "?tool=incident.create")).hasSize(2)
                .allSatisfy(n -> assertThat(n.get("tool").asString()).isEqualTo("incident.create"));
        assertThat(records(alice, "?principal=user:bob")).hasSize(1)
                .allSatisfy(n -> assertThat(n.get("tool").asString()).isEqualTo("incident.find"));
        List<JsonNode> rejected = records(alice, "?status=rejected");
        assertThat(rejected).hasSize(1);
        assertThat(rejected.get(0).get("callId").asString()).isEqualTo(denied);
        assertThat(rejected.get(0).get("decisionReason").asString()).isEqualTo("no");
        assertThat(records(alice, "?tool=incident.create&status=proposed")).hasSize(1);

        Instant created = fx.gate.findCall(denied).orElseThrow().createdAt();
        String from = URLEncoder.encode(created.toString(), StandardCharsets.UTF_8);
        String justAfter = URLEncoder.encode(created.plusNanos(1000).toString(), StandardCharsets.UTF_8);
        assertThat(records(alice, "?from=" + from).stream().map(n -> n.get("callId").asString())).contains(denied);
        assertThat(records(alice, "?to=" + from).stream().map(n -> n.get("callId").asString()))
                .as("'to' is exclusive").doesNotContain(denied);
        assertThat(records(alice, "?from=" + justAfter).stream().map(n -> n.get("callId").asString())).doesNotContain(denied);
        assertThat(records(alice, "?from=2000-01-01T00:00:00Z&to=2000-01-02T00:00:00Z")).isEmpty();
    }

    @Test
    void aPrincipalWithoutAKindFindsThatNameUnderEveryKind() {
        fx.carolProposes("One");
        fx.gate.call(CallContext.of(Principal.application("carol", "incident.read")).withSession("s-app"), "incident.find", "{}");
        fx.gate.call(CallContext.of(ConsoleFixture.BOB).withSession("s-bob"), "incident.find", "{}");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");

        assertThat(records(alice, "?principal=carol")).extracting(n -> n.get("principal").get("key").asString())
                .containsExactly("application:carol", "user:carol");
        assertThat(records(alice, "?principal=user:carol")).extracting(n -> n.get("principal").get("key").asString())
                .containsExactly("user:carol");
        assertThat(records(alice, "?principal=carol&limit=1")).as("the page counts matches").hasSize(1);
        assertThat(json(alice.get("/api/audit?principal=carol&limit=1")).get("next").isNull()).isFalse();
        assertThat(records(alice, "?principal=caro")).isEmpty();
    }

    @Test
    void aRevertedCallReadsRevertedAndItsRevertReadsAsTheRevertOfIt() {
        CallContext carol = CallContext.of(CAROL).withSession("s-carol");
        String run = fx.gate.executions().start(carol, "incident.open", "{}").executionId();
        String step = fx.gate.executions().find(run).orElseThrow().pendingCallId();
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        assertThat(alice.post("/api/inbox/" + step + "/approve", "{}").status()).isEqualTo(200);
        var rollback = fx.gate.executions().rollback(carol, run);
        assertThat(rollback.reverted()).as(rollback.toString()).isEqualTo(1);

        JsonNode undone = records(alice, "?status=reverted").stream().filter(n -> n.get("callId").asString().equals(step))
                .findFirst().orElseThrow(() -> new AssertionError("the undone step does not read reverted"));
        String revertId = undone.get("revertedBy").asString();
        assertThat(undone.get("reverts").isNull()).isTrue();
        assertThat(records(alice, "?status=applied")).extracting(n -> n.get("callId").asString())
                .as("applied: only the revert").containsExactly(revertId);
        JsonNode revert = records(alice, "?status=applied").get(0);
        assertThat(revert.get("reverts").asString()).isEqualTo(step);
        assertThat(revert.get("revertedBy").isNull()).isTrue();
        assertThat(revert.get("summary").asString()).startsWith("Revert: ");

        ConsoleResponse again = alice.post("/api/inbox/" + step + "/approve", "{}");
        assertThat(again.status()).isEqualTo(409);
        assertThat(json(again).get("message").asString()).isEqualTo("already decided: applied by alice, then reverted");
    }

    @Test
    void pagingVisitsEveryRecordOnceNewestFirst() {
        for (int i = 0; i < 23; i++) {
            fx.gate.call(CallContext.of(ConsoleFixture.BOB).withSession("s-bob"), "incident.find", "{}");
        }
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        Set<String> seen = new HashSet<>();
        List<String> order = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            ConsoleResponse r = alice.get("/api/audit?limit=5" + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(r.status()).isEqualTo(200);
            JsonNode page = json(r);
            page.get("records").forEach(n -> {
                assertThat(seen.add(n.get("callId").asString())).as("seen once").isTrue();
                order.add(n.get("createdAt").asString());
            });
            cursor = page.get("next").isNull() ? null : page.get("next").asString();
            pages++;
        } while (cursor != null && pages < 20);
        assertThat(seen).hasSize(23);
        assertThat(pages).isEqualTo(5);
        List<Instant> times = order.stream().map(Instant::parse).toList();
        for (int i = 1; i < times.size(); i++) {
            assertThat(times.get(i)).isBeforeOrEqualTo(times.get(i - 1));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"?limit=0", "?limit=201", "?limit=abc", "?limit=-1", "?status=bogus", "?status=",
            "?from=yesterday", "?to=2026-13-01T00:00:00Z", "?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z",
            "?cursor=garbage", "?cursor=%00%01", "?cursor=AAAA", "?tool=%ZZ", "?sort=desc", "?tenant=other"})
    void badParametersAreRefusedNamingTheField(String query) {
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        ConsoleResponse r = alice.get("/api/audit" + query);
        if (query.equals("?status=")) {
            assertThat(r.status()).as("an empty filter is no filter").isEqualTo(200);
            return;
        }
        assertThat(r.status()).as(query + ": " + r.bodyText()).isEqualTo(400);
        assertThat(json(r).get("error").asString()).isEqualTo("bad_request");
        assertThat(json(r).get("message").asString()).isNotBlank();
    }
}
