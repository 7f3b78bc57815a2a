package dev.toolgate.execution;

import dev.toolgate.access.Principal;
import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.ExecutionStatus;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.tool.ClientChannel;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.Denied;
import dev.toolgate.call.Executed;
import dev.toolgate.call.PolicyDeniedException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposalClosedException;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.StepRef;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.call.TokenExpiredException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.json.CanonicalJson;
import dev.toolgate.json.FieldDiff;
import dev.toolgate.json.Json;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.spi.StepTakenException;
import dev.toolgate.spi.StoreUnavailableException;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import dev.toolgate.tool.RegisteredTool;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The {@link Run} a program gets for one attempt. Each call is the next step: a step already in the
 * run's log is answered from the log (after checking it is the same call), nothing runs and nothing is
 * charged; the approved step of a replay is applied by the approver; any other step goes through the
 * gate as a new, logged call.
 */
final class Handle implements Run {

    /** The most steps one run takes: its log is read back whole on every replay. */
    static final int MAX_STEPS = 10_000;
    /** Lines of the run's log kept, and characters per line. */
    static final int MAX_LOG_LINES = 1_000;
    static final int MAX_LOG_LINE = 2_000;

    private final Wiring wiring;
    private final String executionId;
    private final Principal principal;
    private final CallContext stepContext;
    private final JsonNode input;
    private final Map<Integer, CallRecord> log;
    private final String approvedCallId;
    private final CallContext approver;
    private final Instant startedAt;
    private final ClientChannel caller;
    private final List<String> lines = new ArrayList<>();
    private int seq;
    private Stop stop;

    Handle(Wiring wiring, String executionId, Principal principal, CallContext stepContext, JsonNode input,
           Map<Integer, CallRecord> log, String approvedCallId, CallContext approver, Instant startedAt,
           ClientChannel caller) {
        this.wiring = wiring;
        this.executionId = executionId;
        this.principal = principal;
        this.stepContext = stepContext;
        this.input = input;
        this.log = log;
        this.approvedCallId = approvedCallId;
        this.approver = approver;
        this.startedAt = startedAt;
        this.caller = caller == null ? ClientChannel.none() : caller;
    }

    /** Why the attempt must end, if a call said so. */
    Stop stop() {
        return stop;
    }

    List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public String executionId() {
        return executionId;
    }

    @Override
    public Principal principal() {
        return principal;
    }

    @Override
    public Instant startedAt() {
        return startedAt;
    }

    @Override
    public SortedSet<String> tools() {
        SortedSet<String> names = new TreeSet<>();
        for (RegisteredTool tool : wiring.resolver().resolveTools(principal, wiring.registry().tools())) {
            names.add(tool.name());
        }
        return Collections.unmodifiableSortedSet(names);
    }

    @Override
    public JsonNode input() {
        return input.deepCopy();
    }

    @Override
    public <T> T input(Class<T> type) {
        return wiring.mapper().treeToValue(input, type);
    }

    @Override
    public <T> T call(String tool, Object arguments, Class<T> resultType) {
        JsonNode result = call(tool, arguments);
        return wiring.mapper().treeToValue(result, Objects.requireNonNull(resultType, "resultType"));
    }

    @Override
    public void log(String message) {
        if (lines.size() < MAX_LOG_LINES) {
            String line = wiring.settings().redactor().redactText(String.valueOf(message));
            lines.add(line.length() > MAX_LOG_LINE ? line.substring(0, MAX_LOG_LINE) + "..." : line);
        }
    }

    @Override
    public JsonNode call(String tool, Object arguments) {
        if (stop != null) {
            throw stop;
        }
        int step = ++seq;
        Objects.requireNonNull(tool, "tool");
        if (step > MAX_STEPS) {
            throw halt(new Stop.Refused(step, new IllegalStateException("a run takes at most " + MAX_STEPS + " steps")));
        }
        JsonNode args;
        try {
            args = arguments == null ? JsonNodeFactory.instance.objectNode()
                    : arguments instanceof JsonNode node ? node : wiring.mapper().valueToTree(arguments);
        } catch (RuntimeException e) {
            throw halt(new Stop.Refused(step, new IllegalArgumentException("the arguments of " + tool
                    + " cannot be written as JSON: " + e.getMessage(), e)));
        }
        // the waiting client hears each step (replayed ones too): "step 2: incident.create"
        if (caller != ClientChannel.none()) { // no message built for the usual run nobody waits on
            caller.progress(step, null, "step " + step + ": " + tool);
        }
        CallRecord logged = log.get(step);
        return logged != null ? fromLog(step, logged, tool, args) : fresh(step, tool, args);
    }

    private Stop halt(Stop reason) {
        if (stop == null) {
            stop = reason;
        }
        return stop;
    }

    /** A logged step: the same call must be asked for; its outcome is served, nothing runs. */
    private JsonNode fromLog(int step, CallRecord logged, String tool, JsonNode args) {
        String hash = hash(args);
        if (!tool.equals(logged.toolName()) || !hash.equals(logged.argumentsHash())) {
            throw halt(new Stop.Diverged("replay diverged at step " + step + ": the log holds " + logged.toolName()
                    + " with arguments " + shortHash(logged.argumentsHash()) + ", the program asked for " + tool
                    + " with arguments " + shortHash(hash) + "; nothing was run"));
        }
        return switch (logged.status()) {
            case EXECUTED, APPLIED -> logged.resultJson() == null ? JsonNodeFactory.instance.nullNode()
                    : Json.parse(logged.resultJson());
            case DENIED -> throw new PolicyDeniedException(new Denied(logged.id(), tool,
                    logged.decisionReason() == null ? "policy" : logged.decisionReason(),
                    new ModeResolution(logged.mode(), logged.modeSource(), false)));
            case INVALID -> throw new ToolValidationException(tool, issues(logged)).recordedAs(logged.id());
            case FAILED -> throw new ToolExecutionException(logged.id(), tool, logged.error(),
                    logged.error() != null && logged.error().contains("timed out"));
            case PROPOSED -> {
                if (logged.id().equals(approvedCallId)) {
                    yield applyApproved(step, logged);
                }
                if (!logged.pendingAt(wiring.calls().now())) {
                    throw halt(new Stop.Closed(ExecutionStatus.EXPIRED, "step " + step + " expired before anyone decided"));
                }
                throw halt(new Stop.Pause(pending(logged)));
            }
            case APPLYING, INTERRUPTED -> throw halt(new Stop.InDoubt(step, logged.id()));
            // a rollback undid it: what the program did next assumed a change that is no longer there
            case REVERTED -> throw halt(new Stop.Closed(ExecutionStatus.ROLLED_BACK, "step " + step + " was reverted by "
                    + logged.revertedBy() + "; the run was rolled back"));
            case EXPIRED -> throw halt(new Stop.Closed(ExecutionStatus.EXPIRED, "step " + step + " expired before anyone decided"));
            case STALE -> throw halt(new Stop.Closed(ExecutionStatus.FAILED, staleStep(step, logged)));
            case REJECTED, SUPERSEDED -> throw halt(new Stop.Closed(ExecutionStatus.REJECTED, "step " + step + " was rejected"
                    + (logged.decidedBy() == null ? "" : " by " + logged.decidedBy())
                    + (logged.decisionReason() == null ? "" : ": " + logged.decisionReason())));
        };
    }

    /** Why a run ends at a step that went stale: what changed, as the step's record says. */
    private static String staleStep(int step, CallRecord logged) {
        String what = logged.error() != null ? logged.error() : logged.decisionReason();
        return "step " + step + " is stale" + (what == null ? "" : ": " + what);
    }

    /** The approved step of a replay: the approver applies it, once. */
    private JsonNode applyApproved(int step, CallRecord logged) {
        Applied applied;
        try {
            applied = wiring.engine().applyStep(approver, logged.id());
        } catch (TokenExpiredException e) {
            throw halt(new Stop.Closed(ExecutionStatus.EXPIRED, "step " + step + " expired before it was approved"));
        } catch (ProposalClosedException e) {
            throw halt(new Stop.Closed(ExecutionStatus.REJECTED, e.getMessage()));
        } catch (TokenAlreadyUsedException e) {
            throw halt(new Stop.Lost(e.getMessage()));
        } catch (StaleProposalException e) {
            if (e.preconditionChanged()) { // closed as stale: what was approved would not be what runs
                throw halt(new Stop.Closed(ExecutionStatus.FAILED, "step " + step + ": " + e.getMessage()));
            }
            throw halt(new Stop.ApproverRefused(step, logged.id(), e));
        } catch (StoreUnavailableException e) {
            throw halt(new Stop.Unavailable(e));
        } catch (ProposeApplyException | BudgetExceededException e) {
            // the approver's rules, separation of duties, a stale payload, an unknown tool, the budget:
            // nothing was claimed; the run waits again and the approver is told
            throw halt(new Stop.ApproverRefused(step, logged.id(), e));
        }
        return applied.result();
    }

    /** A step not in the log: a new governed call, logged as this step. */
    private JsonNode fresh(int step, String tool, JsonNode args) {
        CallResult result;
        try {
            result = wiring.engine().callStep(stepContext, new StepRef(executionId, step), tool, args);
        } catch (StepTakenException e) {
            throw halt(new Stop.Lost(e.getMessage()));
        } catch (ToolExecutionException | PolicyDeniedException e) {
            throw e; // logged as this step: the program may catch it, and a replay raises it again
        } catch (ToolValidationException e) {
            if (e.callId() != null) {
                throw e; // the dry-run's or execution's rejection, logged as this step
            }
            throw halt(new Stop.Refused(step, e));
        } catch (StoreUnavailableException e) {
            throw halt(new Stop.Unavailable(e));
        } catch (ProposeApplyException | BudgetExceededException | IllegalArgumentException | IllegalStateException e) {
            throw halt(new Stop.Refused(step, e));
        }
        if (result instanceof Executed executed) {
            return executed.result();
        }
        if (result instanceof Applied applied) {
            return applied.result();
        }
        if (result instanceof Denied denied) {
            throw new PolicyDeniedException(denied);
        }
        Proposal proposal = (Proposal) result;
        throw halt(new Stop.Pause(new PendingAction(executionId, step, proposal.callId(), proposal.toolName(),
                wiring.settings().redactor().redact(proposal.payload()), proposal.summary(), proposal.diff(),
                proposal.expiresAt())));
    }

    /** The pending action of a logged, still pending step proposal. */
    PendingAction pending(CallRecord proposal) {
        return pendingAction(wiring, proposal);
    }

    static PendingAction pendingAction(Wiring wiring, CallRecord proposal) {
        return new PendingAction(proposal.executionId(), proposal.stepSeq(), proposal.id(), proposal.toolName(),
                wiring.settings().redactor().redact(Json.parse(proposal.payloadJson())), proposal.summary(),
                proposal.diffJson() == null ? List.of() : FieldDiff.fromJson(Json.parse(proposal.diffJson())),
                proposal.expiresAt());
    }

    private static List<ValidationIssue> issues(CallRecord invalid) {
        List<ValidationIssue> issues = new ArrayList<>();
        if (invalid.resultJson() != null) {
            for (JsonNode issue : Json.parse(invalid.resultJson())) {
                issues.add(ValidationIssue.at(issue.path("path").asString(""), issue.path("message").asString("")));
            }
        }
        if (issues.isEmpty()) {
            issues.add(ValidationIssue.at("", invalid.error() == null ? "invalid" : invalid.error()));
        }
        return issues;
    }

    /** The hash the gate records for a call's arguments: SHA-256 of their canonical JSON. */
    static String hash(JsonNode args) {
        JsonNode node = args == null || args.isMissingNode() ? JsonNodeFactory.instance.objectNode() : args;
        return CanonicalJson.sha256Hex(CanonicalJson.canonicalize(node).getBytes(StandardCharsets.UTF_8));
    }

    private static String shortHash(String hash) {
        return hash.length() > 12 ? hash.substring(0, 12) + "..." : hash;
    }
}
