package dev.toolgate.console;

import static dev.toolgate.console.ConsoleFixture.CAROL;
import static dev.toolgate.console.ConsoleFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.execution.ExecutionOutcome;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The inbox through the console's API, on a real gate: what operators see and what their decisions do. */
class InboxApiTest {

    private final ConsoleFixture fx = new ConsoleFixture();

    @AfterEach
    void close() {
        fx.close();
    }

    private static JsonNode card(JsonNode inbox, String callId) {
        for (JsonNode card : inbox.get("cards")) {
            if (card.get("callId").asString().equals(callId)) {
                return card;
            }
        }
        return null;
    }

    @Test
    void anOperatorSeesCarolsProposalAsACardWithEverythingNeededToDecide() {
        String first = fx.carolProposes("Disk full");
        String escalation = fx.propose(CAROL, "incident.escalate", "{\"id\":1,\"severity\":\"high\"}");
        ConsoleResponse r = fx.client().signedIn("alice").get("/api/inbox");

        assertThat(r.status()).isEqualTo(200);
        JsonNode inbox = json(r);
        assertThat(inbox.get("cards")).hasSize(2);
        assertThat(inbox.get("cards").get(0).get("callId").asString()).as("newest first").isEqualTo(escalation);
        JsonNode card = card(inbox, first);
        assertThat(card.get("tool").asString()).isEqualTo("incident.create");
        assertThat(card.get("effect").asString()).isEqualTo("mutate");
        assertThat(card.get("summary").asString()).isEqualTo("Open incident \"Disk full\" (high)");
        assertThat(card.get("payload").get("title").asString()).isEqualTo("Disk full");
        assertThat(card.get("proposer").get("id").asString()).isEqualTo("carol");
        assertThat(card.get("session").asString()).isEqualTo("s-carol");
        assertThat(card.get("expiresAt").asString()).isNotBlank();
        assertThat(card.get("decidable").asBoolean()).isTrue();
        assertThat(card.get("alwaysAllowed").asBoolean()).as("no tenant or automation to allow it at").isFalse();
        assertThat(card.get("scopes")).isEmpty();
        JsonNode diff = card(inbox, escalation).get("diff");
        assertThat(diff).hasSize(1);
        assertThat(diff.get(0).get("path").asString()).isEqualTo("/severity");
        assertThat(diff.get(0).get("before").asString()).isEqualTo("low");
        assertThat(diff.get(0).get("after").asString()).isEqualTo("high");
        assertThat(r.header("ETag")).contains("\"" + inbox.get("version").asString() + "\"");
    }

    @Test
    void aCardWhoseObjectChangedSinceItsPreviewIsShownStaleAndApprovingItRunsNothing() {
        String high = fx.propose(CAROL, "incident.escalate", "{\"id\":1,\"severity\":\"high\"}");
        String critical = fx.propose(CAROL, "incident.escalate", "{\"id\":1,\"severity\":\"critical\"}");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        JsonNode before = json(alice.get("/api/inbox"));
        assertThat(card(before, critical).get("stale").asBoolean()).isFalse();
        assertThat(json(alice.post("/api/inbox/" + high + "/approve", "{}")).get("outcome").asString()).isEqualTo("approved");

        JsonNode inbox = json(alice.get("/api/inbox"));
        JsonNode card = card(inbox, critical);
        assertThat(card.get("stale").asBoolean()).as("shown before anyone clicks").isTrue();
        assertThat(card.get("staleChanges").get(0).get("path").asString()).isEqualTo("/before/severity");
        assertThat(card.get("staleChanges").get(0).get("before").asString()).isEqualTo("low");
        assertThat(card.get("staleChanges").get(0).get("after").asString()).isEqualTo("high");
        assertThat(inbox.get("version").asString()).isNotEqualTo(before.get("version").asString());

        ConsoleResponse approved = alice.post("/api/inbox/" + critical + "/approve", "{}");
        assertThat(approved.status()).isEqualTo(200);
        JsonNode outcome = json(approved);
        assertThat(outcome.get("outcome").asString()).isEqualTo("stale");
        assertThat(outcome.get("message").asString()).contains("\"low\" -> \"high\"").contains("Propose again");
        assertThat(fx.incidents).extracting(ConsoleFixture.Incident::severity).containsExactly("high");
        assertThat(card(json(alice.get("/api/inbox")), critical)).as("out of the inbox").isNull();
    }

    @Test
    void aNonApproverGetsNoInboxAndCannotDecide() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client bob = fx.client().signedIn("bob");
        assertThat(json(bob.get("/api/session")).get("operator").asBoolean()).isFalse();

        ConsoleResponse inbox = bob.get("/api/inbox");
        assertThat(inbox.status()).isEqualTo(403);
        assertThat(json(inbox).get("message").asString()).contains(ConsoleFixture.APPROVER);
        assertThat(inbox.bodyText()).doesNotContain(callId);
        ConsoleResponse approve = bob.post("/api/inbox/" + callId + "/approve", "{}");
        assertThat(approve.status()).isEqualTo(403);
        assertThat(bob.get("/api/audit").status()).isEqualTo(403);
        assertThat(bob.get("/api/sources").status()).isEqualTo(403);
        assertThat(fx.gate.findCall(callId).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(fx.incidents).hasSize(1);
    }

    @Test
    void approvingOnceRunsTheStoredPayloadAndTheAuditNamesTheApprover() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");

        ConsoleResponse r = alice.post("/api/inbox/" + callId + "/approve", "{\"always\":false,\"reason\":\"looks right\"}");

        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        assertThat(json(r).get("outcome").asString()).isEqualTo("approved");
        assertThat(json(r).get("status").asString()).isEqualTo("applied");
        assertThat(fx.incidents).extracting(ConsoleFixture.Incident::title).contains("Disk full");
        CallRecord record = fx.gate.findCall(callId).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(record.appliedBy().id()).isEqualTo("alice");
        assertThat(record.transport()).isNotNull();
        assertThat(card(json(alice.get("/api/inbox")), callId)).as("the card left the inbox").isNull();
    }

    @Test
    void denyingNeedsAReasonAndKeepsIt() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");

        ConsoleResponse noReason = alice.post("/api/inbox/" + callId + "/deny", "{\"reason\":\"   \"}");
        assertThat(noReason.status()).isEqualTo(400);
        assertThat(json(noReason).get("field").asString()).isEqualTo("reason");
        assertThat(fx.gate.findCall(callId).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);

        ConsoleResponse r = alice.post("/api/inbox/" + callId + "/deny", "{\"reason\":\"duplicate of #1\"}");
        assertThat(r.status()).isEqualTo(200);
        assertThat(json(r).get("outcome").asString()).isEqualTo("rejected");
        CallRecord record = fx.gate.findCall(callId).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.REJECTED);
        assertThat(record.decisionReason()).isEqualTo("duplicate of #1");
        assertThat(record.decidedBy().id()).isEqualTo("alice");
        assertThat(fx.incidents).hasSize(1);
    }

    @Test
    void editingCreatesASupersedingProposalAndBadArgumentsChangeNothing() {
        String callId = fx.carolProposes("Disk ful");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");

        ConsoleResponse bad = alice.post("/api/inbox/" + callId + "/edit", "{\"arguments\":{\"title\":\"Disk full\",\"severity\":\"extreme\"}}");
        assertThat(bad.status()).as(bad.bodyText()).isEqualTo(400);
        assertThat(json(bad).get("message").asString()).contains("severity");
        assertThat(fx.gate.findCall(callId).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
        ConsoleResponse notObject = alice.post("/api/inbox/" + callId + "/edit", "{\"arguments\":[1]}");
        assertThat(notObject.status()).isEqualTo(400);
        assertThat(json(notObject).get("field").asString()).isEqualTo("arguments");

        ConsoleResponse r = alice.post("/api/inbox/" + callId + "/edit", "{\"arguments\":{\"title\":\"Disk full\",\"severity\":\"low\"}}");
        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        String replacement = json(r).get("replacement").get("callId").asString();
        assertThat(json(r).get("replacement").get("status").asString()).isEqualTo("proposed");
        assertThat(fx.gate.findCall(callId).orElseThrow().status()).isEqualTo(CallStatus.SUPERSEDED);
        JsonNode card = card(json(alice.get("/api/inbox")), replacement);
        assertThat(card.get("supersedes").asString()).isEqualTo(callId);
        assertThat(card.get("payload").get("title").asString()).isEqualTo("Disk full");
        assertThat(card.get("proposer").get("id").asString()).as("the edit is proposed by its editor").isEqualTo("alice");
        assertThat(fx.incidents).hasSize(1);
    }

    @Test
    void aCardAnotherOperatorDecidedAnswersAlreadyDecidedAndChangesNothing() {
        String callId = fx.carolProposes("Disk full");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        ConsoleFixture.Client dave = fx.client().signedIn("dave");
        assertThat(alice.post("/api/inbox/" + callId + "/approve", "{}").status()).isEqualTo(200);

        for (String action : List.of("approve", "deny", "edit")) {
            String body = action.equals("deny") ? "{\"reason\":\"no\"}"
                    : action.equals("edit") ? "{\"arguments\":{\"title\":\"x\",\"severity\":\"low\"}}" : "{}";
            ConsoleResponse late = dave.post("/api/inbox/" + callId + "/" + action, body);
            assertThat(late.status()).as(action + ": " + late.bodyText()).isEqualTo(409);
            JsonNode error = json(late);
            assertThat(error.get("error").asString()).isEqualTo("already_decided");
            assertThat(error.get("message").asString()).isEqualTo("already decided: applied by alice");
            assertThat(error.get("status").asString()).isEqualTo("applied");
            assertThat(error.get("by").asString()).isEqualTo("alice");
        }
        assertThat(fx.incidents).hasSize(2);
        assertThat(fx.gate.findCall(callId).orElseThrow().appliedBy().id()).isEqualTo("alice");
    }

    @Test
    void ofManyOperatorsApprovingOneCardAtOnceExactlyOneWins() throws Exception {
        List<ConsoleFixture.Client> operators = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            operators.add(fx.client().signedIn(i % 2 == 0 ? "alice" : "dave"));
        }
        ExecutorService pool = Executors.newFixedThreadPool(operators.size());
        try {
            for (int round = 0; round < 10; round++) {
                String callId = fx.carolProposes("Race " + round);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<ConsoleResponse>> answers = new ArrayList<>();
                for (ConsoleFixture.Client operator : operators) {
                    answers.add(pool.submit(() -> {
                        start.await();
                        return operator.post("/api/inbox/" + callId + "/approve", "{}");
                    }));
                }
                start.countDown();
                int won = 0;
                int late = 0;
                for (Future<ConsoleResponse> answer : answers) {
                    ConsoleResponse r = answer.get(30, TimeUnit.SECONDS);
                    if (r.status() == 200) {
                        won++;
                    } else {
                        assertThat(r.status()).as(r.bodyText()).isEqualTo(409);
                        assertThat(json(r).get("message").asString()).as("the loser waits for the winner's tool")
                                .matches("already decided: applied by (alice|dave)");
                        late++;
                    }
                }
                assertThat(won).as("round " + round).isEqualTo(1);
                assertThat(late).isEqualTo(operators.size() - 1);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(fx.incidents).as("each proposal ran exactly once").hasSize(11);
    }

    @Test
    void approveAlwaysStoresAnAllowAtTheChosenScopeAndIsNotOfferedForDestructiveTools() {
        String noTenant = fx.carolProposes("No tenant");
        fx.tenant = "acme";
        String callId = fx.carolProposes("Disk full");
        String purge = fx.propose(ConsoleFixture.DAVE, "admin.purge", "{}");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        JsonNode inbox = json(alice.get("/api/inbox"));
        assertThat(card(inbox, noTenant)).as("another tenant's card").isNull();
        assertThat(card(inbox, purge).get("alwaysAllowed").asBoolean()).isFalse();
        assertThat(card(inbox, purge).get("scopes")).isEmpty();
        assertThat(card(inbox, purge).get("effect").asString()).isEqualTo("destructive");
        assertThat(card(inbox, callId).get("scopes").toString()).isEqualTo("[\"tenant\"]");

        ConsoleResponse noScope = alice.post("/api/inbox/" + callId + "/approve", "{\"always\":true}");
        assertThat(noScope.status()).isEqualTo(400);
        assertThat(json(noScope).get("field").asString()).isEqualTo("scope");
        ConsoleResponse badScope = alice.post("/api/inbox/" + callId + "/approve", "{\"always\":true,\"scope\":\"planet\"}");
        assertThat(badScope.status()).isEqualTo(400);
        ConsoleResponse scopeOnce = alice.post("/api/inbox/" + callId + "/approve", "{\"always\":false,\"scope\":\"tenant\"}");
        assertThat(scopeOnce.status()).isEqualTo(400);
        ConsoleResponse noAutomation = alice.post("/api/inbox/" + callId + "/approve", "{\"always\":true,\"scope\":\"automation\"}");
        assertThat(noAutomation.status()).as("the proposal has no automation").isEqualTo(400);
        assertThat(fx.gate.findCall(callId).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);

        ConsoleResponse r = alice.post("/api/inbox/" + callId + "/approve", "{\"always\":true,\"scope\":\"tenant\"}");
        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        CallResult next = fx.gate.call(CallContext.of(CAROL).withTenant("acme").withSession("s-carol"), "incident.create",
                "{\"title\":\"Second\",\"severity\":\"low\"}");
        assertThat(next.status()).as("allowed from now on in acme").isEqualTo("applied");
        CallResult elsewhere = fx.gate.call(CallContext.of(CAROL).withTenant("globex").withSession("s-carol-2"), "incident.create",
                "{\"title\":\"Third\",\"severity\":\"low\"}");
        assertThat(elsewhere.status()).as("not in another tenant").isEqualTo("awaiting_operator");
    }

    @Test
    void withSeparationOfDutiesAnOperatorCannotDecideTheirOwnProposal() {
        try (ConsoleFixture strict = new ConsoleFixture(b -> b.requireDistinctApprover(true), c -> { })) {
            String own = strict.propose(ConsoleFixture.DAVE, "incident.create", "{\"title\":\"Mine\",\"severity\":\"low\"}");
            ConsoleFixture.Client dave = strict.client().signedIn("dave");
            JsonNode card = card(json(dave.get("/api/inbox")), own);
            assertThat(card.get("decidable").asBoolean()).isFalse();
            assertThat(card.get("blockedReason").asString()).isNotBlank();

            ConsoleResponse r = dave.post("/api/inbox/" + own + "/approve", "{}");
            assertThat(r.status()).isEqualTo(403);
            assertThat(strict.gate.findCall(own).orElseThrow().status()).isEqualTo(CallStatus.PROPOSED);
            assertThat(strict.client().signedIn("alice").post("/api/inbox/" + own + "/approve", "{}").status()).isEqualTo(200);
        }
    }

    @Test
    void aPausedRunsStepIsACardAndApprovingItResumesTheRun() {
        ExecutionOutcome started = fx.gate.executions().start(CallContext.of(CAROL).withSession("s-carol"), "incident.open", "{}");
        assertThat(started.status()).isEqualTo("paused");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        JsonNode step = null;
        for (JsonNode card : json(alice.get("/api/inbox")).get("cards")) {
            if (!card.get("executionId").isNull()) {
                step = card;
            }
        }
        assertThat(step).as("the paused step is in the inbox").isNotNull();
        assertThat(step.get("stepSeq").asInt()).isEqualTo(2);
        assertThat(step.get("tool").asString()).isEqualTo("incident.create");

        ConsoleResponse r = alice.post("/api/inbox/" + step.get("callId").asString() + "/approve", "{}");
        assertThat(r.status()).as(r.bodyText()).isEqualTo(200);
        assertThat(json(r).get("outcome").asString()).isEqualTo("resumed");
        assertThat(json(r).get("runStatus").asString()).isEqualTo("completed");
        assertThat(fx.incidents).extracting(ConsoleFixture.Incident::title).contains("Opened by a run");
        ConsoleResponse again = fx.client().signedIn("dave").post("/api/inbox/" + step.get("callId").asString() + "/approve", "{}");
        assertThat(again.status()).isEqualTo(409);
        assertThat(json(again).get("error").asString()).isEqualTo("already_decided");
    }

    @Test
    void theInboxAnswersNotModifiedUntilSomethingChanges() {
        fx.carolProposes("One");
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        String etag = alice.get("/api/inbox").header("ETag").orElseThrow();
        ConsoleResponse same = alice.send(alice.request("GET", "/api/inbox", null).header("If-None-Match", etag).build());
        assertThat(same.status()).isEqualTo(304);
        assertThat(same.bodyText()).isEmpty();

        fx.carolProposes("Two");
        ConsoleResponse changed = alice.send(alice.request("GET", "/api/inbox", null).header("If-None-Match", etag).build());
        assertThat(changed.status()).isEqualTo(200);
        assertThat(json(changed).get("cards")).hasSize(2);
        assertThat(changed.header("ETag").orElseThrow()).isNotEqualTo(etag);
    }

    @Test
    void unknownAndMalformedCallIdsAreNotFoundWithoutEchoingThem() {
        ConsoleFixture.Client alice = fx.client().signedIn("alice");
        ConsoleResponse unknown = alice.post("/api/inbox/no-such-call/approve", "{}");
        assertThat(unknown.status()).isEqualTo(404);
        ConsoleResponse hostile = alice.post("/api/inbox/%3Cscript%3Ealert(1)%3C%2Fscript%3E/approve", "{}");
        assertThat(hostile.status()).isEqualTo(404);
        assertThat(hostile.bodyText()).doesNotContain("script");
    }
}
