package dev.toolgate.springai;

import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.conversation.Repeat;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.CallResult;
import dev.toolgate.call.DuplicateCallException;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.ProposeApplyException;
import dev.toolgate.call.StaleProposalException;
import dev.toolgate.call.ToolExecutionException;
import dev.toolgate.call.Turn;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.json.Json;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolValidationException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;

/**
 * One gate tool as a Spring AI {@link ToolCallback}: its definition carries the chat name, the gate's
 * description and JSON Schema; {@link #call(String, ToolContext)} runs {@code gate.call} under the
 * qualified name and answers every outcome as JSON for the model, never by throwing.
 */
final class GatedToolCallback implements ToolCallback {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateToolCallbacks.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();

    private final ToolgateToolCallbacks owner;
    private final String qualifiedName;
    private final boolean mutates;
    private final ToolDefinition definition;

    GatedToolCallback(ToolgateToolCallbacks owner, String chatName, RegisteredTool tool) {
        this.owner = owner;
        this.qualifiedName = tool.name();
        this.mutates = tool.effect().mutates();
        this.definition = ToolDefinition.builder()
                .name(chatName)
                .description(tool.descriptor().description())
                .inputSchema(Json.write(tool.descriptor().inputSchema()))
                .build();
    }

    @Override
    public ToolDefinition getToolDefinition() {
        return definition;
    }

    /** The gate's qualified name this callback calls. */
    String qualifiedName() {
        return qualifiedName;
    }

    @Override
    public String call(String toolInput) {
        return call(toolInput, null);
    }

    /**
     * A call outside Toolgate's advisor (Spring AI's own tool loop): no model response groups it into a
     * turn, so only a repeat of a proposal still pending in the conversation is caught.
     */
    @Override
    public String call(String toolInput, ToolContext toolContext) {
        return call(toolInput, toolContext, null);
    }

    /**
     * Runs the call for the principal of this request and answers every outcome as JSON. A tool the
     * principal may not see answers exactly as a name that does not exist. {@code turn} is the model
     * response the call came in, or null.
     */
    String call(String toolInput, ToolContext toolContext, Turn turn) {
        String chatName = definition.name();
        try {
            Principal principal = owner.principalFor(toolContext);
            if (principal == null || !owner.visible(principal, qualifiedName)) {
                return ModelReplies.unknownTool(chatName);
            }
            CallContext context = owner.contextFor(principal, toolContext).withTurn(turn);
            String arguments = toolInput == null || toolInput.isBlank() ? "{}" : toolInput;
            if (mutates) {
                Optional<Repeat> repeat = owner.gate().conversations().repeatOf(context, qualifiedName, arguments);
                if (repeat.isPresent()) {
                    if (repeat.get() instanceof Repeat.Pending pending) {
                        return turn != null && turn.proposed(pending.proposalId())
                                ? ModelReplies.duplicate(chatName) : ModelReplies.pendingRepeat(pending, chatName);
                    }
                    return ModelReplies.declinedRepeat(((Repeat.Declined) repeat.get()).decision(), chatName);
                }
            }
            CallResult result = owner.gate().call(context, qualifiedName, arguments);
            if (result instanceof Proposal proposal) {
                owner.proposed(proposal);
            }
            if (result instanceof dev.toolgate.call.Applied applied && applied.result().has("executionId")
                    && owner.startsRuns(qualifiedName)) {
                return ModelReplies.run(applied, chatName, owner.consent());
            }
            return ModelReplies.of(result, chatName, owner.showsToken(), owner.consent());
        } catch (UnknownToolException | ForbiddenException e) { // hidden now (rights changed): as if it did not exist
            return ModelReplies.unknownTool(chatName);
        } catch (BudgetExceededException e) {
            return ModelReplies.overBudget(e);
        } catch (ToolValidationException e) {
            return ModelReplies.feedback((e.toolName() == null ? e.forTool(qualifiedName) : e).feedback());
        } catch (DuplicateCallException e) {
            return ModelReplies.duplicate(chatName);
        } catch (StaleProposalException e) {
            return e.preconditionChanged() ? ModelReplies.stale(e, chatName) : ModelReplies.gateError(e);
        } catch (ProposeApplyException e) {
            return ModelReplies.gateError(e);
        } catch (ToolExecutionException e) {
            return ModelReplies.failed(e, chatName);
        } catch (dev.toolgate.spi.StoreUnavailableException e) { // the store logs the outage once
            LOG.debug("Spring AI call of {} refused: {}", qualifiedName, e.getMessage());
            return ModelReplies.storeUnavailable(e);
        } catch (RuntimeException e) {
            LOG.error("Spring AI call of {} ({}) failed", qualifiedName, chatName, LOGGED.redactThrowable(e));
            return ModelReplies.internal(chatName);
        }
    }

    @Override
    public String toString() {
        return "GatedToolCallback[" + definition.name() + " -> " + qualifiedName + "]";
    }
}
