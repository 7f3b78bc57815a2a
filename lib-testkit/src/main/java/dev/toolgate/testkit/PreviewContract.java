package dev.toolgate.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.Toolgate;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.budget.ToolBudget;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallPreview;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Proposal;
import dev.toolgate.policy.Disposition;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.Preview;
import dev.toolgate.tool.Tool;
import dev.toolgate.tool.ToolDefinitionException;
import dev.toolgate.tool.ToolValidationException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Previews (what a call would do, found without doing it) and tools with a standing approval (a
 * MUTATE tool whose own call needs no consent because what it changes is governed call by call).
 */
public interface PreviewContract extends ContractCase {

    @Test
    default void aPreviewOfAMutationRunsTheDryRunAndStoresNothing() {
        fx().notes.put("n1", "old text");
        CallPreview preview = fx().gate().preview(fx().ctx(fx().writer), "notes.edit",
                Fixtures.json("{\"id\":\"n1\",\"text\":\"new text\"}"));

        assertThat(preview.toolName()).isEqualTo("notes.edit");
        assertThat(preview.effect()).isEqualTo(Effect.MUTATE);
        assertThat(preview.disposition()).isEqualTo(Disposition.PROPOSE_AND_WAIT);
        assertThat(preview.wouldPause()).isTrue();
        assertThat(preview.summary()).isEqualTo("Edit note n1");
        assertThat(preview.payload().get("text").asString()).isEqualTo("new text");
        assertThat(preview.diff()).singleElement().satisfies(change -> assertThat(change.path()).isEqualTo("/text"));
        assertThat(fx().notes.dryRuns).hasValue(1);
        assertThat(fx().notes.mutations).hasValue(0);
        assertThat(fx().notes.snapshot()).containsEntry("n1", "old text");
        assertThat(fx().records()).isEmpty();
    }

    @Test
    default void aPreviewTellsWhatPolicyWouldDoNow() {
        Toolgate gate = fx().gate();
        CallContext writer = fx().ctx(fx().writer);
        String add = "{\"id\":\"n1\",\"text\":\"hello\"}";

        assertThat(gate.preview(writer.withPermissionMode(PermissionMode.AUTO), "notes.add", Fixtures.json(add)).disposition())
                .isEqualTo(Disposition.PROPOSE_AND_APPLY);
        assertThat(gate.preview(writer, "notes.list", Fixtures.json("{}")).disposition()).isEqualTo(Disposition.RUN);
        assertThat(fx().notes.reads).as("a read is not run by its preview").hasValue(0);

        gate.setMode(fx().ctx(fx().admin), OverrideScope.TENANT, "notes.add", Mode.DENY);
        CallPreview denied = gate.preview(writer, "notes.add", Fixtures.json(add));
        assertThat(denied.disposition()).isEqualTo(Disposition.DENY);
        assertThat(denied.summary()).isNull();
        assertThat(denied.payload()).isNull();
        assertThat(fx().notes.dryRuns).as("a denied call is not dry-run").hasValue(1);
        assertThat(fx().records()).isEmpty();
    }

    @Test
    default void aPreviewMakesTheCallsChecksAndChangesNothingWhenOneFails() {
        Toolgate gate = fx().gate();
        assertThatThrownBy(() -> gate.preview(fx().ctx(fx().reader), "notes.add", Fixtures.json("{\"id\":\"n1\",\"text\":\"x\"}")))
                .isInstanceOf(ForbiddenException.class);
        assertThatThrownBy(() -> gate.preview(fx().ctx(fx().writer), "notes.add", Fixtures.json("{\"id\":\"n1\"}")))
                .isInstanceOfSatisfying(ToolValidationException.class,
                        e -> assertThat(e.issues()).anySatisfy(issue -> assertThat(issue.message()).contains("text")));
        assertThatThrownBy(() -> gate.preview(fx().ctx(fx().writer), "notes.add",
                Fixtures.json("{\"id\":\"n1\",\"text\":\"forbidden words\"}")))
                .isInstanceOfSatisfying(ToolValidationException.class,
                        e -> assertThat(e.issues()).singleElement().satisfies(issue -> assertThat(issue.path()).isEqualTo("/text")));
        assertThat(fx().notes.snapshot()).isEmpty();
        assertThat(fx().records()).isEmpty();
    }

    @Test
    default void aPreviewIsMetered() {
        Toolgate gate = fx().gate(b -> b.budget(ToolBudget.perPrincipal(2, Duration.ofSeconds(60))));
        CallContext writer = fx().ctx(fx().writer);
        gate.preview(writer, "notes.add", Fixtures.json("{\"id\":\"n1\",\"text\":\"a\"}"));
        gate.preview(writer, "notes.add", Fixtures.json("{\"id\":\"n2\",\"text\":\"b\"}"));
        assertThatThrownBy(() -> gate.preview(writer, "notes.add", Fixtures.json("{\"id\":\"n3\",\"text\":\"c\"}")))
                .isInstanceOf(BudgetExceededException.class);
        assertThat(fx().notes.dryRuns).hasValue(2);
    }

    @Test
    default void aToolWithAStandingApprovalAppliesAtOnceAndIsRecordedAsSuch() {
        AtomicInteger runs = new AtomicInteger();
        Toolgate gate = fx().gate(b -> b.tools("batch", standing(runs)));
        CallResult result = gate.call(fx().ctx(fx().writer), "batch.run", Fixtures.json("{\"id\":\"b1\"}"));

        Applied applied = (Applied) result;
        assertThat(applied.automatic()).isTrue();
        assertThat(applied.summary()).isEqualTo("Run batch b1");
        assertThat(runs).hasValue(1);
        CallRecord record = fx().store.calls().find(applied.callId()).orElseThrow();
        assertThat(record.status()).isEqualTo(CallStatus.APPLIED);
        assertThat(record.decisionReason()).isEqualTo("standing_approval");
    }

    @Test
    default void anExplicitPolicyStillDecidesAToolWithAStandingApproval() {
        AtomicInteger runs = new AtomicInteger();
        Toolgate gate = fx().gate(b -> b.tools("batch", standing(runs)));
        gate.setMode(fx().ctx(fx().admin), OverrideScope.TENANT, "batch.run", Mode.REQUIRE_APPROVAL);
        assertThat(gate.call(fx().ctx(fx().writer), "batch.run", Fixtures.json("{\"id\":\"b1\"}"))).isInstanceOf(Proposal.class);

        gate.setMode(fx().ctx(fx().admin), OverrideScope.TENANT, "batch.run", Mode.DENY);
        assertThat(gate.call(fx().ctx(fx().writer), "batch.run", Fixtures.json("{\"id\":\"b2\"}")).status()).isEqualTo("denied");
        assertThat(runs).hasValue(0);
    }

    @Test
    default void onlyAMutateToolCanHaveAStandingApproval() {
        for (Effect effect : new Effect[] {Effect.READ, Effect.DESTRUCTIVE}) {
            assertThatThrownBy(() -> Tool.builder("run", Notes.NoteId.class).description("d").effect(effect)
                    .standingApproval().execute((in, ctx) -> "x").build())
                    .isInstanceOf(ToolDefinitionException.class)
                    .hasMessageContaining("standing approval");
        }
    }

    private static Tool<Notes.NoteId, String> standing(AtomicInteger runs) {
        return Tool.builder("run", Notes.NoteId.class).description("Run a batch").effect(Effect.MUTATE).requires(Notes.WRITE)
                .standingApproval()
                .dryRun((in, ctx) -> Preview.of("Run batch " + in.id()))
                .execute((in, ctx) -> "ran " + in.id() + " #" + runs.incrementAndGet())
                .build();
    }

    /** JSON literals for the contract's calls. */
    final class Fixtures {
        private Fixtures() {
        }

        static tools.jackson.databind.JsonNode json(String text) {
            return dev.toolgate.json.Json.parse(text);
        }
    }
}
