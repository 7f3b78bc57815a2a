package dev.toolgate.gate;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.RevertResult;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.json.Json;
import dev.toolgate.json.TextCap;
import dev.toolgate.spi.CallStore.ClaimResult;
import dev.toolgate.spi.CallStore.Completion;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolContext;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * Undoing applied calls, for rollbacks: a revert is claimed once per applied call across every
 * instance (its own audit record, {@code reverts} naming the call), then the tool's revert runs with
 * the payload that ran and the result it recorded, and its outcome is recorded like an apply's.
 */
final class Reverts {

    private static final Logger LOG = LoggerFactory.getLogger(StandardEngine.class);

    private final Steps steps;

    Reverts(Steps steps) {
        this.steps = steps;
    }

    RevertResult revert(CallContext actor, String callId) {
        long start = System.nanoTime();
        Objects.requireNonNull(actor, "actor");
        CallRecord applied = steps.calls.find(callId).orElseThrow(() -> new UnknownProposalException("No call " + callId));
        if (applied.revertedBy() != null) {
            return new RevertResult(callId, RevertResult.Outcome.ALREADY_REVERTED, applied.revertedBy(), null);
        }
        if (applied.status() != CallStatus.APPLIED || !applied.effect().mutates()) {
            return new RevertResult(callId, RevertResult.Outcome.SKIPPED, null,
                    "call " + callId + " is " + applied.status().wireName() + ", not an applied mutation");
        }
        RegisteredTool tool = steps.preparation.tool(applied.toolName());
        if (!tool.revertible()) {
            return new RevertResult(callId, RevertResult.Outcome.SKIPPED, null, tool.name() + " has no revert");
        }
        steps.preparation.authorize(actor.principal(), tool);
        PrincipalRef who = PrincipalRef.of(actor.principal());
        CallRecord draft = CallRecord.builder()
                .id(Steps.newId())
                .toolName(applied.toolName())
                .effect(applied.effect())
                .principal(who)
                .tenantId(applied.tenantId())
                .sessionId(applied.sessionId())
                .automationId(applied.automationId())
                .transport(actor.transport())
                .status(CallStatus.APPLYING)
                .mode(applied.mode())
                .modeSource(applied.modeSource())
                .argumentsHash(applied.argumentsHash())
                .summary("Revert: " + applied.summary())
                .appliedBy(who)
                .decisionReason("rollback")
                .reverts(applied.id())
                .build();
        ClaimResult claim = steps.calls.claimRevert(draft, steps.outcomeWithin(tool));
        if (claim.status() != ClaimResult.Status.CLAIMED) {
            String earlier = claim.record() == null ? null : claim.record().id();
            return new RevertResult(callId, RevertResult.Outcome.ALREADY_REVERTED, earlier, null);
        }
        CallRecord revert = claim.record();
        JsonNode payload = Json.parse(applied.payloadJson());
        JsonNode result = applied.resultJson() == null ? null : Json.parse(applied.resultJson());
        ToolContext context = new ToolContext(revert.id(), actor.principal(), applied.tenantId(), applied.sessionId(),
                applied.automationId(), actor.transport(), ToolContext.Phase.EXECUTE);
        long toolStart = System.nanoTime();
        try {
            steps.runTool(tool, () -> {
                tool.revert(payload, result, context);
                return null;
            });
        } catch (Throwable e) {
            String message = e instanceof ToolRunner.Timeout ? tool.name() + " revert " + e.getMessage() : steps.hygiene.error(e);
            steps.calls.complete(revert.id(), new Completion(CallStatus.FAILED, null, message, Steps.millisSince(toolStart)));
            steps.events.publish(revert, CallStatus.FAILED, who, start);
            LOG.warn("Reverting call {} of {} failed (revert {}): {}", callId, tool.name(), revert.id(),
                    TextCap.forLog(message));
            if (e instanceof Error error) {
                throw error;
            }
            return new RevertResult(callId, RevertResult.Outcome.FAILED, revert.id(), message);
        }
        steps.calls.complete(revert.id(), new Completion(CallStatus.APPLIED, "null", null, Steps.millisSince(toolStart)));
        steps.calls.markReverted(applied.id(), revert.id());
        steps.events.publish(revert, CallStatus.APPLIED, who, start);
        return new RevertResult(callId, RevertResult.Outcome.REVERTED, revert.id(), null);
    }
}
