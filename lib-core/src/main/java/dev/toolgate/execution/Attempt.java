package dev.toolgate.execution;

import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallQuery;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.audit.ExecutionRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.SessionKind;
import dev.toolgate.json.Json;
import dev.toolgate.json.JsonTruncator;
import dev.toolgate.json.TextCap;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.ClientChannel;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * One attempt at a run: the program runs from the start against the run's log, and the attempt
 * settles the run as its handle says: paused, completed, failed, interrupted, closed, or (when
 * another runner has it) unchanged. Only the attempt the run holds can pause or finish it.
 */
final class Attempt {

    private static final Logger LOG = LoggerFactory.getLogger(Executions.class);

    private final Wiring wiring;
    private final ExecutionRecord run;
    private final Principal principal;
    private final String approvedCallId;
    private final CallContext approver;
    private final ClientChannel caller;

    /**
     * @param run            the run, running at the attempt this runner holds
     * @param principal      who the run's new steps are made for
     * @param approvedCallId the pending step an approver applies in this attempt, or null
     * @param approver       that approver, or null
     * @param caller         the client waiting for this attempt (it hears each step as progress), or null
     */
    Attempt(Wiring wiring, ExecutionRecord run, Principal principal, String approvedCallId, CallContext approver,
            ClientChannel caller) {
        this.wiring = wiring;
        this.caller = caller == null ? ClientChannel.none() : caller;
        this.run = run;
        this.principal = principal;
        this.approvedCallId = approvedCallId;
        this.approver = approver;
    }

    /** The context the run's new steps are made in: the run's setting, unattended, its permission mode. */
    static CallContext stepContext(ExecutionRecord run, Principal principal) {
        return CallContext.of(principal).withTenant(run.tenantId()).withSession(run.sessionId())
                .withAutomation(run.automationId()).withTransport(run.transport())
                .withPermissionMode(run.autoApprove() ? PermissionMode.AUTO : PermissionMode.APPROVE)
                .withSessionKind(SessionKind.UNATTENDED);
    }

    ExecutionOutcome execute() {
        Program program = wiring.programs().get(run.program());
        if (program == null) {
            throw new UnknownProgramException(run.program());
        }
        Map<Integer, CallRecord> log = new HashMap<>();
        if (run.attempt() > 1) { // a first attempt has an empty log: no need to read it
            for (CallRecord step : wiring.calls().query(CallQuery.latest(CallQuery.MAX_LIMIT).execution(run.id()))) {
                log.put(step.stepSeq(), step);
            }
        }
        // most runs start without input: its empty object needs no parser
        JsonNode input = "{}".equals(run.inputJson()) ? wiring.mapper().createObjectNode() : Json.parse(run.inputJson());
        Handle handle = new Handle(wiring, run.id(), principal, stepContext(run, principal), input, log,
                approvedCallId, approver, run.createdAt(), caller);
        Object returned = null;
        Throwable thrown = null;
        try {
            returned = program.run(handle);
        } catch (Throwable t) {
            thrown = t;
        }
        if (handle.stop() != null) {
            return settle(handle.stop(), handle, log);
        }
        if (thrown instanceof Error error && !(thrown instanceof StackOverflowError) && !(thrown instanceof AssertionError)
                && !(thrown instanceof LinkageError)) {
            // the JVM is in trouble (out of memory): leave the run running for another instance
            throw error;
        }
        if (thrown != null) {
            String error = message(thrown instanceof ProgramException ? thrown.getMessage()
                    : thrown.getClass().getSimpleName() + (thrown.getMessage() == null ? "" : ": " + thrown.getMessage()));
            LOG.info("Execution {} of {} failed: {}", run.id(), run.program(), TextCap.forLog(error));
            return finish(ExecutionStatus.FAILED, null, error, handle.lines());
        }
        JsonNode result;
        try {
            JsonNode raw = returned == null ? wiring.mapper().nullNode()
                    : returned instanceof JsonNode node ? node : wiring.mapper().valueToTree(returned);
            result = JsonTruncator.truncate(wiring.settings().redactor().redact(raw), wiring.settings().resultLimitBytes()).value();
        } catch (RuntimeException e) {
            return finish(ExecutionStatus.FAILED, null, message("the program's result cannot be written as JSON: "
                    + e.getMessage()), handle.lines());
        }
        return finish(ExecutionStatus.COMPLETED, result, null, handle.lines());
    }

    private ExecutionOutcome settle(Stop stop, Handle handle, Map<Integer, CallRecord> log) {
        List<String> lines = handle.lines();
        if (stop instanceof Stop.Pause pause) {
            if (!wiring.runs().pause(run.id(), run.attempt(), pause.action.seq(), pause.action.callId())) {
                return notPaused();
            }
            return new ExecutionOutcome.Paused(run.id(), List.of(pause.action));
        }
        if (stop instanceof Stop.Diverged diverged) {
            String error = message(diverged.getMessage());
            LOG.warn("Execution {} of {}: {}", run.id(), run.program(), TextCap.forLog(error));
            closeOpenProposals(log, "replay diverged");
            return finish(ExecutionStatus.FAILED, null, error, lines);
        }
        if (stop instanceof Stop.Refused) {
            return finish(ExecutionStatus.FAILED, null, message(stop.getMessage()), lines);
        }
        if (stop instanceof Stop.InDoubt) {
            LOG.warn("Execution {} of {}: {}", run.id(), run.program(), TextCap.forLog(stop.getMessage()));
            return finish(ExecutionStatus.INTERRUPTED, null, message(stop.getMessage()), lines);
        }
        if (stop instanceof Stop.Closed closed) {
            // fenced by the attempt: a runner that lost the run changes nothing
            String error = message(closed.getMessage());
            boolean finished = wiring.runs().finish(run.id(), run.attempt(), closed.status, null, error, lines);
            // a step that went stale fails the run: its approver (and the model) read why, with what changed
            return finished && closed.status == ExecutionStatus.FAILED ? new ExecutionOutcome.Failed(run.id(), error, lines)
                    : notPaused();
        }
        if (stop instanceof Stop.ApproverRefused refused) {
            wiring.runs().pause(run.id(), run.attempt(), refused.seq, refused.callId);
            throw refused.cause;
        }
        if (stop instanceof Stop.Unavailable unavailable) {
            throw unavailable.cause;
        }
        LOG.info("Execution {} of {}: this attempt stops, another runner has the run ({})", run.id(), run.program(),
                TextCap.forLog(message(stop.getMessage())));
        return notPaused();
    }

    /**
     * A run's error as it is stored and shown: redacted, then cut to {@link TextCap#MESSAGE_CHARS}
     * characters (a program's message may be megabytes; the model's outcome must still hold it).
     */
    private String message(String text) {
        return TextCap.forMessage(wiring.settings().redactor().redactText(String.valueOf(text)));
    }

    /** Takes still pending step proposals out of the inbox once the run can no longer go on. */
    private void closeOpenProposals(Map<Integer, CallRecord> log, String reason) {
        for (CallRecord step : log.values()) {
            if (step.status() == CallStatus.PROPOSED) {
                wiring.engine().rejectStep(approver != null ? approver : stepContext(run, principal), step.id(), reason);
            }
        }
    }

    private ExecutionOutcome finish(ExecutionStatus status, JsonNode result, String error, List<String> lines) {
        String json = result == null ? null : result.isNull() ? "null" : Json.write(result); // a void program's: no writer
        if (!wiring.runs().finish(run.id(), run.attempt(), status, json, error, lines)) {
            return notPaused();
        }
        return switch (status) {
            case COMPLETED -> new ExecutionOutcome.Completed(run.id(), result, lines);
            default -> new ExecutionOutcome.Failed(run.id(), error, lines);
        };
    }

    private ExecutionOutcome notPaused() {
        ExecutionStatus now = wiring.runs().find(run.id()).map(ExecutionRecord::status).orElse(ExecutionStatus.FAILED);
        return new ExecutionOutcome.NotPaused(run.id(), now);
    }
}
