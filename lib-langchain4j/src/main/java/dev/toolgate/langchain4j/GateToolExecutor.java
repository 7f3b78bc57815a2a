package dev.toolgate.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.toolgate.Toolgate;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.conversation.Repeat;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.DuplicateCallException;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Consent;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.Turn;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.tool.ToolValidationException;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one gate tool for one invocation: the qualified name and the call context are fixed when the
 * tool is offered, so the function name the model sends is never parsed back into a gate name. Each
 * call runs in the invocation's current model response (its {@link dev.toolgate.call.Turn}); a mutation
 * that repeats a proposal still pending or declined in the conversation is answered from it.
 */
final class GateToolExecutor implements ToolExecutor {

    private static final Logger LOG = LoggerFactory.getLogger(GateToolExecutor.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    private final Toolgate gate;
    private final String toolName;
    private final String functionName;
    private final boolean mutates;
    private final Invocations.Invocation invocation;
    private final boolean exposeToken;
    private final Consumer<Proposal> onProposal;
    private final Consent consent;

    GateToolExecutor(Toolgate gate, String toolName, String functionName, boolean mutates, Invocations.Invocation invocation,
                     boolean exposeToken, Consumer<Proposal> onProposal, Consent consent) {
        this.consent = consent;
        this.gate = gate;
        this.toolName = toolName;
        this.functionName = functionName;
        this.mutates = mutates;
        this.invocation = invocation;
        this.exposeToken = exposeToken;
        this.onProposal = onProposal;
    }

    /** True if this tool starts a durable run of the program of its name (codemode.run). */
    private boolean startsRuns() {
        try {
            return gate.executions().programs().contains(toolName);
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    @Override
    public String execute(ToolExecutionRequest request, Object memoryId) {
        return run(request).text();
    }

    @Override
    public ToolExecutionResult executeWithContext(ToolExecutionRequest request, InvocationContext invocationContext) {
        ToolOutcomes.Outcome outcome = run(request);
        String text = outcome.text();
        return ToolExecutionResult.builder().isError(outcome.error()).resultText(text).result(text).build();
    }

    ToolOutcomes.Outcome run(ToolExecutionRequest request) {
        Turn turn = invocation.turn();
        CallContext context = invocation.context.withTurn(turn);
        try {
            if (mutates) {
                Optional<Repeat> repeat = gate.conversations().repeatOf(context, toolName, request.arguments());
                if (repeat.isPresent()) {
                    if (repeat.get() instanceof Repeat.Pending pending) {
                        return turn.proposed(pending.proposalId())
                                ? ToolOutcomes.duplicate(toolName) : ToolOutcomes.pendingRepeat(pending, toolName);
                    }
                    return ToolOutcomes.declinedRepeat(((Repeat.Declined) repeat.get()).decision(), toolName);
                }
            }
            CallResult result = gate.call(context, toolName, request.arguments());
            if (result instanceof Proposal proposal) {
                if (onProposal != null) {
                    try {
                        onProposal.accept(proposal);
                    } catch (RuntimeException e) {
                        LOG.error("The host's proposal handler failed for proposal {} of {}", proposal.callId(), toolName,
                                LOGGED.redactThrowable(e));
                    }
                }
            }
            if (result instanceof dev.toolgate.call.Applied applied && applied.result().has("executionId") && startsRuns()) {
                return ToolOutcomes.run(applied, consent);
            }
            return ToolOutcomes.of(result, exposeToken, consent);
        } catch (UnknownToolException | ForbiddenException e) { // hidden now (rights changed): as if it did not exist
            return ToolOutcomes.unknownTool(functionName);
        } catch (BudgetExceededException e) {
            return ToolOutcomes.budget(e);
        } catch (ToolValidationException e) {
            return ToolOutcomes.validation(e, toolName);
        } catch (DuplicateCallException e) {
            return ToolOutcomes.duplicate(toolName);
        } catch (StaleProposalException e) {
            return e.preconditionChanged() ? ToolOutcomes.stale(e, toolName) : ToolOutcomes.gate(e);
        } catch (ProposeApplyException e) {
            return ToolOutcomes.gate(e);
        } catch (ToolExecutionException e) {
            return ToolOutcomes.failed(e);
        } catch (dev.toolgate.spi.StoreUnavailableException e) { // the store logs the outage once
            LOG.debug("LangChain4j call of {} refused: {}", toolName, e.getMessage());
            return ToolOutcomes.storeUnavailable(e);
        } catch (RuntimeException e) {
            LOG.error("LangChain4j call of {} failed", toolName, LOGGED.redactThrowable(e));
            return ToolOutcomes.internal(toolName);
        }
    }
}
