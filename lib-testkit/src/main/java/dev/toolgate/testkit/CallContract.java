package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Executed;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.NoInput;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolProvider;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Calls: reads run and are audited, mutations only ever propose, bad input changes nothing. */
public interface CallContract extends ContractCase {

    @Test
    default void aReadCallExecutesAndIsAudited() {
        fx().notes.put("a", "alpha");
        CallResult result = fx().gate().call(fx().ctx(fx().reader).withTransport("chat"), "notes.list", "{}");

        Executed executed = (Executed) result;
        assertThat(executed.result().get("a").asString()).isEqualTo("alpha");
        CallRecord record = fx().store.calls().find(executed.callId()).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.EXECUTED);
        assertThat(record.toolName()).isEqualTo("notes.list");
        assertThat(record.principal().key()).isEqualTo("user:reader");
        assertThat(record.transport()).isEqualTo("chat");
        assertThat(record.tenantId()).isEqualTo("acme");
        assertThat(record.createdAt()).isEqualTo(fx().clock.instant());
        assertThat(record.completedAt()).isNotNull();
        assertThat(record.resultJson()).contains("alpha");
        assertThat(record.payloadJson()).isNull();
        assertThat(record.tokenDigest()).isNull();
    }

    @Test
    default void mutatingToolsNeverExecuteFromACall() {
        CallContext ctx = fx().ctx(fx().writer);
        CallResult add = fx().gate().call(ctx, "notes.add", "{\"id\":\"n1\",\"text\":\"hello\"}");
        CallResult purge = fx().gate().call(ctx.withPermissionMode(PermissionMode.AUTO), "notes.purge", "{\"id\":\"n1\"}");

        assertThat(add).isInstanceOf(Proposal.class);
        assertThat(purge).isInstanceOf(Proposal.class);
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(fx().notes.snapshot()).isEmpty();
        assertThat(fx().records()).extracting(CallRecord::status).containsOnly(CallStatus.PROPOSED);
    }

    @Test
    default void proposeReturnsTokenSummaryPayloadDiffAndExpiryWithoutMutating() {
        fx().notes.put("n1", "old text");
        Proposal proposal = (Proposal) fx().gate().call(fx().ctx(fx().writer), "notes.edit",
                "{\"text\":\"new text\",\"id\":\"n1\"}");

        assertThat(proposal.status()).isEqualTo("awaiting_operator");
        assertThat(proposal.token()).matches("propose:" + proposal.callId() + "\\.[0-9a-f]{64}");
        assertThat(proposal.summary()).isEqualTo("Edit note n1");
        assertThat(proposal.payload().get("text").asString()).isEqualTo("new text");
        assertThat(proposal.diff()).singleElement().satisfies(change -> {
            assertThat(change.path()).isEqualTo("/text");
            assertThat(change.before().asString()).isEqualTo("old text");
            assertThat(change.after().asString()).isEqualTo("new text");
        });
        assertThat(proposal.expiresAt()).isEqualTo(fx().clock.instant().plus(Duration.ofMinutes(10)));
        assertThat(fx().notes.dryRuns).hasValue(1);
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(fx().notes.snapshot()).containsEntry("n1", "old text");
        assertThat(proposal.toJson().get("status").asString()).isEqualTo("awaiting_operator");
    }

    @Test
    default void theStoredRecordHoldsTheNonceDigestNeverTheNonce() {
        Proposal proposal = (Proposal) fx().gate().call(fx().ctx(fx().writer), "notes.add", "{\"id\":\"n1\",\"text\":\"x\"}");
        String nonce = proposal.token().substring(proposal.token().lastIndexOf('.') + 1);

        CallRecord record = fx().store.calls().find(proposal.callId()).orElseThrow();
        assertThat(record.tokenDigest()).isEqualTo(dev.toolgate.json.CanonicalJson.sha256Hex(java.util.HexFormat.of().parseHex(nonce)));
        assertThat(record.toString() + record.tokenDigest() + record.payloadJson() + record.summary()).doesNotContain(nonce);
        assertThat(record.status()).isEqualTo(CallStatus.PROPOSED);
        assertThat(record.payloadJson()).contains("\"id\":\"n1\"");
    }

    @Test
    default void aDryRunRejectionIsFeedbackForTheModelAndCreatesNoProposal() {
        assertThatThrownBy(() -> fx().gate().call(fx().ctx(fx().writer), "notes.add",
                "{\"id\":\"n1\",\"text\":\"a forbidden word\"}"))
                .isInstanceOfSatisfying(ToolValidationException.class, e -> {
                    assertThat(e.toolName()).isEqualTo("notes.add");
                    assertThat(e.issues()).containsExactly(ValidationIssue.at("/text", "the word 'forbidden' is not allowed in a note"));
                    assertThat(e.feedback().kind().wireName()).isEqualTo("validation");
                    assertThat(e.feedback().toolName()).isEqualTo("notes.add");
                    assertThat(e.feedback().toJson().at("/issues/0/path").asString()).isEqualTo("/text");
                    assertThat(e.feedback().toJson().get("kind").asString()).isEqualTo("validation");
                });

        assertThat(fx().records()).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(CallStatus.INVALID);
            assertThat(r.tokenDigest()).isNull();
            assertThat(r.error()).contains("forbidden");
        });
        assertThat(fx().notes.mutations).hasValue(0);
    }

    @Test
    default void unknownToolsAndForbiddenCallsAreTypedAndChangeNothing() {
        assertThatThrownBy(() -> fx().gate().call(fx().ctx(fx().writer), "notes.nope", "{}"))
                .isInstanceOf(UnknownToolException.class).hasMessage("Unknown tool: notes.nope");
        assertThatThrownBy(() -> fx().gate().call(fx().ctx(fx().reader), "notes.add", "{\"id\":\"a\",\"text\":\"b\"}"))
                .isInstanceOfSatisfying(ForbiddenException.class, e -> {
                    assertThat(e).hasMessage("Forbidden: notes.add (missing permission: notes.note.write)");
                    assertThat(e.missingRules()).containsExactly(Notes.WRITE);
                });
        assertThatThrownBy(() -> fx().gate().call(fx().ctx(fx().service), "notes.list", "{}"))
                .isInstanceOf(ForbiddenException.class).hasMessageContaining("service principals");

        assertThat(fx().records()).isEmpty();
        assertThat(fx().notes.dryRuns).hasValue(0);
    }

    @Test
    default void badInputOfEveryKindIsATypedErrorThatChangesNoState() {
        CallContext ctx = fx().ctx(fx().writer);
        var gate = fx().gate(b -> b.maxArgumentBytes(1024));
        List<String> bad = List.of(
                "{\"id\":",                                        // malformed JSON
                "[1,2]",                                           // not an object
                "{\"id\":1,\"text\":\"x\"}",                       // wrong type
                "{\"id\":\"a\"}",                                  // missing required
                "{\"id\":\"a\",\"text\":\"x\",\"extra\":true}",    // unknown key
                "{\"id\":\"a\",\"text\":\"\"}",                    // out of range (minLength 1)
                "{\"id\":\"a\",\"text\":\"" + "x".repeat(2000) + "\"}", // oversized
                "{\"id\":\"a\",\"text\":\"x\"} trailing");         // trailing garbage
        for (String arguments : bad) {
            assertThatThrownBy(() -> gate.call(ctx, "notes.add", arguments))
                    .as(arguments).isInstanceOfSatisfying(ToolValidationException.class,
                            e -> assertThat(e.issues()).isNotEmpty().allSatisfy(i -> assertThat(i.message()).isNotBlank()));
        }
        assertThat(fx().records()).isEmpty();
        assertThat(fx().notes.dryRuns).hasValue(0);
        // the budget was not consumed either: a tight budget still admits the next good call
        var tight = fx().gate(b -> b.budget(dev.toolgate.budget.ToolBudget.perPrincipal(1, Duration.ofMinutes(1))));
        assertThatThrownBy(() -> tight.call(ctx, "notes.add", "{}")).isInstanceOf(ToolValidationException.class);
        assertThat(tight.call(ctx, "notes.add", "{\"id\":\"a\",\"text\":\"x\"}")).isInstanceOf(Proposal.class);
    }

    @Test
    default void everyValidationIssueIsReportedNotJustTheFirst() {
        assertThatThrownBy(() -> fx().gate().call(fx().ctx(fx().writer), "notes.add", "{\"id\":7,\"text\":\"\",\"x\":1}"))
                .isInstanceOfSatisfying(ToolValidationException.class, e -> assertThat(e.issues())
                        .extracting(ValidationIssue::path).containsExactlyInAnyOrder("/id", "/text", "/x"));
    }

    /**
     * A tool runs on the caller's thread unless it asks to be handed off; its timeout interrupts that
     * thread, is recorded like any other, and leaves no interrupt behind for the store or the caller's
     * next call (on H2's default file system an interrupt would close the database file).
     */
    @Test
    default void aToolOnTheCallersThreadRunsThereAndItsTimeoutIsRecordedWithNoInterruptLeft() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Thread> ranOn = new java.util.concurrent.atomic.AtomicReference<>();
        Tool<NoInput, String> here = Tool.builder("here", NoInput.class).description("Answers on the caller's thread")
                .effect(Effect.READ).requires(Notes.READ)
                .execute((in, ctx) -> {
                    ranOn.set(Thread.currentThread());
                    return "here";
                }).build();
        Tool<NoInput, String> stuck = Tool.builder("stuck", NoInput.class).description("Hangs on the caller's thread")
                .effect(Effect.READ).requires(Notes.READ).timeout(Duration.ofMillis(200))
                .execute((in, ctx) -> {
                    Thread.sleep(10_000);
                    return "never";
                }).build();
        java.util.List<Thread> mutatedOn = new java.util.concurrent.CopyOnWriteArrayList<>();
        Tool<NoInput, String> touch = Tool.builder("touch", NoInput.class).description("Changes something, on the caller's thread")
                .effect(Effect.MUTATE).requires(Notes.WRITE)
                .dryRun((in, ctx) -> {
                    mutatedOn.add(Thread.currentThread());
                    return dev.toolgate.tool.Preview.of("Touch");
                })
                .execute((in, ctx) -> {
                    mutatedOn.add(Thread.currentThread());
                    return "touched";
                }).build();
        dev.toolgate.Toolgate gate = fx().gate(b -> b.provider(ToolProvider.of("inline", here, stuck, touch)));
        CallContext writer = fx().ctx(fx().writer);
        Proposal proposal = (Proposal) gate.call(writer, "inline.touch", "{}");
        assertThat(gate.apply(writer, proposal.token())).isNotNull();
        assertThat(mutatedOn).as("the dry-run and the execution").containsExactly(Thread.currentThread(), Thread.currentThread());
        CallContext ctx = fx().ctx(fx().reader);

        assertThat(gate.call(ctx, "inline.here", "{}")).isInstanceOf(Executed.class);
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        long start = System.nanoTime();
        assertThatThrownBy(() -> gate.call(ctx, "inline.stuck", "{}"))
                .isInstanceOfSatisfying(ToolExecutionException.class, e -> {
                    assertThat(e.timedOut()).isTrue();
                    assertThat(e).hasMessage("inline.stuck timed out after 200 ms");
                });
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("cut at the deadline").isLessThan(Duration.ofSeconds(5));
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        Thread.sleep(250); // an interrupt arriving late would end this sleep
        assertThat(gate.call(ctx, "inline.here", "{}")).isInstanceOf(Executed.class);
        assertThat(fx().records()).extracting(CallRecord::toolName, CallRecord::status, CallRecord::error)
                .containsExactlyInAnyOrder(
                        org.assertj.core.api.Assertions.tuple("inline.touch", CallStatus.APPLIED, null),
                        org.assertj.core.api.Assertions.tuple("inline.here", CallStatus.EXECUTED, null),
                        org.assertj.core.api.Assertions.tuple("inline.stuck", CallStatus.FAILED, "inline.stuck timed out after 200 ms"),
                        org.assertj.core.api.Assertions.tuple("inline.here", CallStatus.EXECUTED, null));
    }

    /**
     * A tool that asked to be handed off runs on a thread of the gate, and its caller is answered at
     * the timeout even while the tool ignores the interrupt and goes on running.
     */
    @Test
    default void aHandedOffToolRunsOnAGateThreadAndItsCallerIsAnsweredAtTheTimeoutWhileItIgnoresTheInterrupt()
            throws Exception {
        java.util.List<Thread> ranOn = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.CountDownLatch stubbornEnded = new java.util.concurrent.CountDownLatch(1);
        Tool<NoInput, String> away = Tool.builder("away", NoInput.class).description("Answers on a gate thread")
                .effect(Effect.READ).requires(Notes.READ).onCallerThread(false)
                .execute((in, ctx) -> {
                    ranOn.add(Thread.currentThread());
                    return "away";
                }).build();
        Tool<NoInput, String> stubborn = Tool.builder("stubborn", NoInput.class).description("Ignores interruption")
                .effect(Effect.READ).requires(Notes.READ).onCallerThread(false).timeout(Duration.ofMillis(200))
                .execute((in, ctx) -> {
                    long end = System.nanoTime() + Duration.ofMillis(1_500).toNanos();
                    while (System.nanoTime() < end) {
                        java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L); // never throws
                    }
                    stubbornEnded.countDown();
                    return "late";
                }).build();
        dev.toolgate.Toolgate gate = fx().gate(b -> b.provider(ToolProvider.of("inline", away, stubborn)));
        CallContext ctx = fx().ctx(fx().reader);

        assertThat(gate.call(ctx, "inline.away", "{}")).isInstanceOf(Executed.class);
        assertThat(ranOn).singleElement().isNotSameAs(Thread.currentThread())
                .satisfies(t -> assertThat(t.getName()).startsWith("toolgate-tool-"));
        long start = System.nanoTime();
        assertThatThrownBy(() -> gate.call(ctx, "inline.stubborn", "{}"))
                .isInstanceOfSatisfying(ToolExecutionException.class, e -> assertThat(e.timedOut()).isTrue());
        assertThat(stubbornEnded.getCount()).as("answered while the tool still runs").isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1_400));
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
        assertThat(fx().records()).extracting(CallRecord::toolName, CallRecord::status, CallRecord::error)
                .containsExactlyInAnyOrder(
                        org.assertj.core.api.Assertions.tuple("inline.away", CallStatus.EXECUTED, null),
                        org.assertj.core.api.Assertions.tuple("inline.stubborn", CallStatus.FAILED,
                                "inline.stubborn timed out after 200 ms"));
        assertThat(stubbornEnded.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
    }

    @Test
    default void aTimedOutToolIsRecordedAsFailedWithAClearMessage() {
        assertThatThrownBy(() -> fx().gate().call(fx().ctx(fx().reader), "notes.slow", "{}"))
                .isInstanceOfSatisfying(ToolExecutionException.class, e -> {
                    assertThat(e.timedOut()).isTrue();
                    assertThat(e).hasMessage("notes.slow timed out after 200 ms");
                });
        assertThat(fx().records()).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(CallStatus.FAILED);
            assertThat(r.error()).isEqualTo("notes.slow timed out after 200 ms");
        });
    }

    @Test
    default void aFailedExecutionIsRecordedWithItsSecretsRedacted() {
        assertThatThrownBy(() -> fx().gate().call(fx().ctx(fx().reader), "notes.fail", "{}"))
                .isInstanceOfSatisfying(ToolExecutionException.class, e -> {
                    assertThat(e.getMessage()).contains("backend refused").doesNotContain("hunter2").doesNotContain("abc123");
                    assertThat(e.timedOut()).isFalse();
                });
        assertThat(fx().records()).singleElement().satisfies(r -> {
            assertThat(r.status()).isEqualTo(CallStatus.FAILED);
            assertThat(r.error()).contains("IllegalStateException", "backend refused", "[REDACTED]")
                    .doesNotContain("hunter2").doesNotContain("abc123");
        });
    }
}
