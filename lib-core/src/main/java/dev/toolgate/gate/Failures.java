package dev.toolgate.gate;

import dev.toolgate.call.GateSettings;
import dev.toolgate.call.SourceUnavailableException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.access.PrincipalRef;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import dev.toolgate.json.TextCap;
import dev.toolgate.spi.CallStore;
import dev.toolgate.spi.StoreFault;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * A call that failed, recorded before its failure propagates: arguments its tool rejected, tool code
 * that threw (before or after a claim), an outcome the store could not record (in doubt), and the
 * exception its caller is thrown.
 */
final class Failures {

    private static final Logger LOG = LoggerFactory.getLogger(StandardEngine.class);
    private final CallStore calls;
    private final GateSettings settings;
    private final Events events;
    private final Hygiene hygiene;

    Failures(CallStore calls, GateSettings settings, Events events, Hygiene hygiene) {
        this.calls = calls;
        this.settings = settings;
        this.events = events;
        this.hygiene = hygiene;
    }

    /**
     * Records a call whose dry-run or execution rejected the arguments, with its issues (redacted) as
     * the result, so a replay can raise the same feedback; the exception names the tool.
     */
    ToolValidationException invalid(CallRecord.Builder draft, Preparation.Prepared call, ToolValidationException e, long toolStart,
                                    long start) {
        ToolValidationException named = e.forTool(call.tool().name());
        tools.jackson.databind.node.ArrayNode issues = tools.jackson.databind.node.JsonNodeFactory.instance.arrayNode();
        for (ValidationIssue issue : named.issues()) {
            issues.addObject().put("path", issue.path())
                    .put("message", TextCap.forMessage(settings.redactor().redactText(issue.message())));
        }
        CallRecord record = calls.record(draft.status(CallStatus.INVALID)
                .error(TextCap.forMessage(settings.redactor().redactText(named.getMessage())))
                .resultJson(dev.toolgate.json.Json.write(issues)).durationMillis(Steps.millisSince(toolStart)).build());
        events.publish(record, CallStatus.INVALID, record.principal(), start);
        return named.recordedAs(record.id());
    }

    /**
     * Records a call whose tool code failed before anything was applied, then returns the exception
     * to throw; an {@link Error} is recorded and then rethrown as it is.
     */
    ToolExecutionException fail(CallRecord.Builder draft, Preparation.Prepared call, Throwable e, long toolStart, long start) {
        String message = failureMessage(call.tool().name(), e);
        CallRecord record;
        try {
            record = calls.record(draft.status(CallStatus.FAILED).error(message).durationMillis(Steps.millisSince(toolStart)).build());
        } catch (RuntimeException | Error recording) {
            throw unrecorded(e, recording);
        }
        return failed(record, e, message, record.principal(), start, null);
    }

    /**
     * Records the failure of a claimed proposal's execution, then returns the exception to throw; an
     * {@link Error} is recorded and then rethrown as it is.
     */
    ToolExecutionException failApplied(CallRecord record, Throwable e, PrincipalRef actor, long toolStart, long start,
                                       Instant proposedAt) {
        String message = failureMessage(record.toolName(), e);
        try {
            calls.complete(record.id(), new CallStore.Completion(CallStatus.FAILED, null, message, Steps.millisSince(toolStart)));
        } catch (StoreUnavailableException recording) {
            throw unrecorded(e, inDoubt(record, recording));
        } catch (RuntimeException | Error recording) {
            throw unrecorded(e, recording);
        }
        return failed(record, e, message, actor, start, proposedAt);
    }

    String failureMessage(String toolName, Throwable e) {
        return e instanceof ToolRunner.Timeout ? toolName + " " + e.getMessage() : hygiene.error(e);
    }

    private ToolExecutionException failed(CallRecord record, Throwable e, String message, PrincipalRef actor, long start,
                                          Instant proposedAt) {
        LOG.warn("Tool {} failed (call {}): {}", record.toolName(), record.id(), TextCap.forLog(message));
        if (LOG.isDebugEnabled()) { // the stack trace, with every message in it redacted as the audit's is
            LOG.debug("Failure of call {}", record.id(), settings.redactor().redactThrowable(e));
        }
        events.publishDecision(record, CallStatus.FAILED, actor, start, proposedAt);
        if (e instanceof Error error) {
            throw error;
        }
        if (e instanceof SourceUnavailableException unavailable) {
            return new SourceUnavailableException(record.id(), unavailable.toolName(), unavailable.sourceId(), message);
        }
        return new ToolExecutionException(record.id(), record.toolName(), message, e instanceof ToolRunner.Timeout);
    }

    /** The tool's failure could not be recorded either: both travel, the tool's first. */
    /**
     * A claimed call whose tool ran but whose outcome the store could not record: in doubt (the sweep
     * marks it {@code interrupted} for an operator), never to be repeated by the caller.
     */
    static StoreUnavailableException inDoubt(CallRecord record, StoreUnavailableException recording) {
        return new StoreUnavailableException("Call " + record.id() + " of " + record.toolName()
                + " was claimed and its tool ran, but its outcome could not be recorded (" + recording.getMessage()
                + "): it is in doubt until an operator resolves it, and it is never run again",
                recording, StoreFault.IN_DOUBT, null);
    }

    private static RuntimeException unrecorded(Throwable toolFailure, Throwable recording) {
        toolFailure.addSuppressed(recording);
        if (toolFailure instanceof Error error) {
            throw error;
        }
        if (recording instanceof Error error) {
            throw error;
        }
        return (RuntimeException) recording;
    }
}
