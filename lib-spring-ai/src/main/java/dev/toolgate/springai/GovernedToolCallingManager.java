package dev.toolgate.springai;

import dev.toolgate.call.Turn;
import dev.toolgate.json.Json;
import dev.toolgate.json.Redactor;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallLimitExceededException;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.execution.DefaultToolExecutionExceptionProcessor;
import org.springframework.ai.tool.execution.ToolExecutionException;
import org.springframework.ai.tool.execution.ToolExecutionExceptionProcessor;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tool calling of {@link ToolgateAdvisor}: every tool call of a model response gets an answer, in the
 * order sent and under its own id, and nothing a model sends throws. A governed tool runs through the
 * gate with the response as one {@link Turn}; a host's own (ungoverned) callback in the request runs as
 * Spring AI runs it, a failure answered as an error; a name the request does not offer gets the same
 * answer as a governed tool the principal may not see. Past {@code maxCallsPerTurn} calls in one user
 * turn, the remaining calls of the response are answered without running and the loop ends, as Spring
 * AI's own limit does.
 */
final class GovernedToolCallingManager implements ToolCallingManager {

    private static final Logger LOG = LoggerFactory.getLogger(GovernedToolCallingManager.class);
    private static final Redactor LOGGED = Redactor.defaults();
    private static final ToolExecutionExceptionProcessor PROCESSOR = DefaultToolExecutionExceptionProcessor.builder().build();

    private final int maxCallsPerTurn;

    GovernedToolCallingManager(int maxCallsPerTurn) {
        this.maxCallsPerTurn = maxCallsPerTurn;
    }

    @Override
    public List<ToolDefinition> resolveToolDefinitions(ToolCallingChatOptions chatOptions) {
        List<ToolCallback> callbacks = chatOptions.getToolCallbacks();
        return callbacks == null ? List.of() : callbacks.stream().map(ToolCallback::getToolDefinition).toList();
    }

    @Override
    public ToolExecutionResult executeToolCalls(Prompt prompt, ChatResponse chatResponse) {
        Optional<Generation> withCalls = chatResponse.getResults().stream()
                .filter(g -> g.getOutput().getToolCalls() != null && !g.getOutput().getToolCalls().isEmpty())
                .findFirst();
        if (withCalls.isEmpty()) {
            throw new IllegalStateException("No tool call requested by the chat model");
        }
        AssistantMessage response = withCalls.get().getOutput();
        List<ToolCallback> callbacks = List.of();
        Map<String, Object> contextMap = Map.of();
        if (prompt.getOptions() instanceof ToolCallingChatOptions options) {
            callbacks = options.getToolCallbacks() == null ? List.of() : options.getToolCallbacks();
            contextMap = options.getToolContext() == null ? Map.of() : new HashMap<>(options.getToolContext());
        }
        ToolContext toolContext = new ToolContext(contextMap);
        Turn turn = Turn.start(); // this model response
        int before = callsThisTurn(prompt.getInstructions());
        List<ToolResponseMessage.ToolResponse> answers = new ArrayList<>();
        Boolean returnDirect = null;
        boolean overLimit = false;
        for (AssistantMessage.ToolCall call : response.getToolCalls()) {
            String name = call.name() == null ? "" : call.name();
            String answer;
            if (before + answers.size() >= maxCallsPerTurn) {
                overLimit = true;
                answer = overLimit(name);
            } else {
                ToolCallback callback = find(callbacks, name);
                answer = answer(callback, name, call.arguments(), toolContext, turn);
                if (callback != null) {
                    boolean direct = callback.getToolMetadata().returnDirect();
                    returnDirect = returnDirect == null ? direct : returnDirect && direct;
                }
            }
            answers.add(new ToolResponseMessage.ToolResponse(call.id(), name, answer));
        }
        List<Message> history = new ArrayList<>(prompt.getInstructions());
        history.add(response);
        history.add(ToolResponseMessage.builder().responses(answers).build());
        ToolExecutionResult result = ToolExecutionResult.builder().conversationHistory(history)
                .returnDirect(Boolean.TRUE.equals(returnDirect) && !overLimit).build();
        if (overLimit) {
            throw new ToolCallLimitExceededException(null, maxCallsPerTurn, result);
        }
        return result;
    }

    private static ToolCallback find(List<ToolCallback> callbacks, String name) {
        for (ToolCallback callback : callbacks) {
            if (name.equals(callback.getToolDefinition().name())) {
                return callback;
            }
        }
        return null;
    }

    private static String answer(ToolCallback callback, String name, String arguments, ToolContext toolContext, Turn turn) {
        String input = arguments == null || arguments.isBlank() ? "{}" : arguments;
        if (callback == null) {
            return ModelReplies.unknownTool(name);
        }
        if (callback instanceof GatedToolCallback gated) {
            return gated.call(input, toolContext, turn);
        }
        try { // the host's own tool, offered beside the gate's: Spring AI's semantics
            String out = callback.call(input, toolContext);
            return out == null ? "" : out;
        } catch (ToolExecutionException e) {
            return PROCESSOR.process(e);
        } catch (RuntimeException e) {
            LOG.error("The host's tool {} failed", name, LOGGED.redactThrowable(e));
            return ModelReplies.internal(name);
        }
    }

    private String overLimit(String name) {
        ObjectNode json = Json.object();
        json.put("status", "over_limit");
        json.put("tool", name);
        json.put("limit", maxCallsPerTurn);
        json.put("message", "Too many tool calls in one turn (the limit is " + maxCallsPerTurn + "); this call did not run.");
        return Json.write(json);
    }

    /** Tool calls the model already made since the last user message. */
    private static int callsThisTurn(List<Message> instructions) {
        int count = 0;
        for (int i = instructions.size() - 1; i >= 0; i--) {
            Message message = instructions.get(i);
            if (message instanceof UserMessage) {
                break;
            }
            if (message instanceof AssistantMessage assistant && assistant.getToolCalls() != null) {
                count += assistant.getToolCalls().size();
            }
        }
        return count;
    }
}
