package dev.toolgate.springai;

import dev.toolgate.access.Principal;
import dev.toolgate.budget.BudgetExceededException;
import dev.toolgate.gate.CallContext;
import dev.toolgate.gate.CallResult;
import dev.toolgate.gate.DuplicateCallException;
import dev.toolgate.gate.ForbiddenException;
import dev.toolgate.gate.Proposal;
import dev.toolgate.gate.ProposeApplyException;
import dev.toolgate.gate.ToolExecutionException;
import dev.toolgate.gate.UnknownToolException;
import dev.toolgate.json.Json;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolValidationException;
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
    private final ToolDefinition definition;

    GatedToolCallback(ToolgateToolCallbacks owner, String chatName, RegisteredTool tool) {
        this.owner = owner;
        this.qualifiedName = tool.name();
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

    @Override
    public String call(String toolInput, ToolContext toolContext) {
        String chatName = definition.name();
        try {
            Principal principal = owner.principalFor(toolContext);
            if (principal == null || !owner.visible(principal, qualifiedName)) {
                return ModelReplies.unknownTool(chatName);
            }
            CallContext context = owner.contextFor(principal, toolContext);
            String arguments = toolInput == null || toolInput.isBlank() ? "{}" : toolInput;
            CallResult result = owner.gate().call(context, qualifiedName, arguments);
            if (result instanceof Proposal proposal) {
                owner.proposed(proposal);
            }
            return ModelReplies.of(result, chatName, owner.showsToken());
        } catch (UnknownToolException e) {
            return ModelReplies.unknownTool(chatName);
        } catch (BudgetExceededException e) {
            return ModelReplies.overBudget(e);
        } catch (ToolValidationException e) {
            return ModelReplies.feedback((e.toolName() == null ? e.forTool(qualifiedName) : e).feedback());
        } catch (DuplicateCallException e) {
            return ModelReplies.duplicate(e);
        } catch (ForbiddenException e) {
            return ModelReplies.forbidden(e, chatName);
        } catch (ProposeApplyException e) {
            return ModelReplies.gateError(e);
        } catch (ToolExecutionException e) {
            return ModelReplies.failed(e, chatName);
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
