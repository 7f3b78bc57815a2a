package dev.toolgate.gate;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.Freshness;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.json.CanonicalJson;
import dev.toolgate.json.FieldChange;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.json.Json;
import dev.toolgate.spi.CallStore.Closure;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.tool.DryRunResult;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolContext;
import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;

/**
 * What must still hold when a proposal runs. A dry-run that shows a diff from the object's current state
 * (or declares a precondition) records it with the proposal: a fingerprint (SHA-256 of the state's
 * canonical JSON) and the state itself, redacted and size-capped. Just before a claimed proposal runs, on
 * every path, its tool's dry-run runs again on the stored payload; a state that differs now (or a
 * dry-run that now refuses the payload) makes the proposal {@code stale}: nothing runs, the record says
 * what changed, and the caller gets a {@link StaleProposalException}. The store lets one call of a
 * precondition apply at a time, so of two proposals made from the same state the second finds it moved.
 */
final class Preconditions {

    private final Steps steps;

    Preconditions(Steps steps) {
        this.steps = steps;
    }

    /** A proposal's precondition as stored: its fingerprint and its redacted, capped JSON; both null for none. */
    record Stored(String fingerprint, String json) {
        static final Stored NONE = new Stored(null, null);
    }

    /** What {@code preview} asks to hold when its proposal runs. */
    Stored of(DryRunResult preview) {
        JsonNode state = preview.precondition();
        if (state == null) {
            return Stored.NONE;
        }
        return new Stored(CanonicalJson.sha256Hex(state), Json.write(steps.hygiene.result(state).value()));
    }

    /**
     * Checks a claimed proposal's precondition just before it runs: its tool's dry-run runs again on the
     * stored payload, as {@code executor}. If the state changed, the proposal is completed as stale and
     * the exception says what changed.
     *
     * @throws StaleProposalException if the precondition no longer holds; nothing ran
     */
    void check(CallRecord claimed, RegisteredTool tool, JsonNode payload, CallContext executor, long start) {
        Freshness now = compare(claimed, tool, payload, executor);
        if (!now.stale()) {
            return;
        }
        PrincipalRef actor = PrincipalRef.of(executor.principal());
        steps.calls.complete(claimed.id(), new Completion(CallStatus.STALE, null, now.message(), null));
        steps.events.publishDecision(claimed, CallStatus.STALE, actor, start, claimed.createdAt());
        throw StaleProposalException.preconditionChanged(now.message(), now.changes());
    }

    /**
     * Whether a proposal's precondition still holds now, as {@code viewer} would check it: its tool's
     * dry-run runs on the stored payload; nothing changes. A proposal without a precondition is fresh.
     */
    Freshness compare(CallRecord proposal, RegisteredTool tool, JsonNode payload, CallContext viewer) {
        if (proposal.precondition() == null || !tool.tool().hasDryRun()) {
            return Freshness.fresh(proposal.id());
        }
        ToolContext again = new ToolContext(proposal.id(), viewer.principal(), proposal.tenantId(), proposal.sessionId(),
                proposal.automationId(), viewer.transport(), ToolContext.Phase.DRY_RUN);
        JsonNode now;
        String refused = null;
        try {
            DryRunResult preview = steps.runTool(tool, () -> tool.dryRun(payload, again));
            now = preview.precondition();
        } catch (Throwable e) {
            if (e instanceof Error error && !(e instanceof StackOverflowError)) {
                throw error;
            }
            now = null;
            refused = steps.failures.failureMessage(tool.name(), e);
        }
        if (now != null && CanonicalJson.sha256Hex(now).equals(proposal.precondition())) {
            return Freshness.fresh(proposal.id());
        }
        List<FieldChange> changes = now == null || proposal.preconditionJson() == null ? List.of()
                : FieldDiff.between(Json.parse(proposal.preconditionJson()), steps.hygiene.result(now).value());
        String what = refused != null ? "its tool now refuses the stored payload (" + refused + ")"
                : changes.isEmpty() ? "the state it was made from changed" : "changed since: " + describe(changes);
        return new Freshness(proposal.id(), true, "Proposal " + proposal.id() + " (" + proposal.toolName() + ") is stale: "
                + what + "; nothing ran. Propose again from the current state", changes);
    }

    /**
     * A claim that lost to another call of the same precondition (it is applying now): the proposal is
     * closed as stale, since the state it was made from is being changed.
     *
     * @return the exception to throw
     */
    StaleProposalException conflict(CallRecord proposal, CallContext decider, long start) {
        String message = "Proposal " + proposal.id() + " (" + proposal.toolName() + ") is stale: another change made from "
                + "the same state was being applied; nothing ran. Propose again from the current state";
        PrincipalRef actor = PrincipalRef.of(decider.principal());
        if (steps.calls.close(proposal.id(), new Closure(CallStatus.STALE, actor, message, null))) {
            steps.events.publishDecision(proposal, CallStatus.STALE, actor, start, proposal.createdAt());
        }
        return StaleProposalException.preconditionChanged(message, List.of());
    }

    /** The changes in a line: {@code /before/title: "old" -> "new"}. */
    static String describe(List<FieldChange> changes) {
        return changes.stream().limit(10).map(c -> (c.path().isEmpty() ? "(the state)" : c.path()) + ": "
                        + (c.before() == null ? "(none)" : Json.write(c.before())) + " -> "
                        + (c.after() == null ? "(none)" : Json.write(c.after())))
                .collect(Collectors.joining("; ")) + (changes.size() > 10 ? "; and " + (changes.size() - 10) + " more" : "");
    }
}
