package dev.toolgate.springai;

import dev.toolgate.access.Principal;
import dev.toolgate.conversation.Decision;
import dev.toolgate.conversation.DecisionNotes;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Redactor;
import dev.toolgate.json.TextCap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.ToolCallingAdvisor;
import org.springframework.ai.chat.client.advisor.api.BaseAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import reactor.core.publisher.Flux;

/**
 * Toolgate's consent loop inside a {@code ChatClient}: the tool-calling advisor to register instead of
 * Spring AI's own (a {@code ChatClient} then adds none), built by {@link ToolgateToolCallbacks#advisor()}.
 *
 * <pre>{@code
 * ChatClient chat = ChatClient.builder(chatModel).defaultAdvisors(tools.advisor()).build();
 * String answer = chat.prompt(question)
 *         .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, conversationId))
 *         .call().content();
 * }</pre>
 *
 * <p>On every request it
 * <ul>
 *   <li>offers the tools the request's principal may see (the {@link ToolgateToolCallbacks}; no
 *       {@code .toolCallbacks(...)} needed, and the host's own callbacks stay beside them);</li>
 *   <li>tells the model, before the user's message, the decisions made since its last turn on the
 *       proposals of this conversation ({@code ChatMemory.CONVERSATION_ID}, which becomes the calls'
 *       session): applied with the result, failed, declined with the reason, expired, edited; each exactly
 *       once, wherever it was decided, never with a token ({@link DecisionNotes}). A request whose model
 *       call fails gives them back for the next one;</li>
 *   <li>answers every tool call of a model response, in the order sent and under its own id: a name it
 *       was not offered, or a tool the principal may not see, gets one and the same {@code unknown_tool}
 *       answer; the response is one {@link dev.toolgate.call.Turn}, so the same call twice makes one
 *       proposal and the second is answered {@code duplicate}; a repeat of a change still pending or
 *       already declined in the conversation is answered {@code duplicate} or {@code declined} without
 *       proposing again. Nothing a model sends throws into the host.</li>
 * </ul>
 * Its order is Spring AI's tool-calling order ({@link ToolCallingAdvisor#DEFAULT_ORDER}): a chat memory
 * advisor at its default order runs outside it, once a request. Thread-safe.
 */
public final class ToolgateAdvisor extends ToolCallingAdvisor {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateAdvisor.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes) and capped. */
    private static final Redactor LOGGED = Redactor.defaults();
    /** Most tool calls in one user turn unless configured, as Spring AI's own limit. */
    public static final int DEFAULT_MAX_CALLS_PER_TURN = 150;

    private final ToolgateToolCallbacks tools;

    private ToolgateAdvisor(Builder builder) {
        super(new GovernedToolCallingManager(builder.maxCallsPerTurn),
                response -> response != null && response.hasToolCalls(), builder.order, builder.conversationHistory);
        this.tools = builder.tools;
    }

    /** A builder for an advisor over {@code tools}. */
    public static Builder builder(ToolgateToolCallbacks tools) {
        return new Builder(tools);
    }

    @Override
    public String getName() {
        return "Toolgate Advisor";
    }

    @Override
    public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
        Prepared prepared = prepare(request);
        try {
            return super.adviseCall(prepared.request(), chain);
        } catch (RuntimeException | Error e) {
            prepared.notes().release();
            throw e;
        }
    }

    @Override
    public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
        return Flux.defer(() -> {
            Prepared prepared = prepare(request);
            return super.adviseStream(prepared.request(), chain).doOnError(e -> prepared.notes().release());
        });
    }

    /** A request made ready for the loop, and the decisions it tells. */
    private record Prepared(ChatClientRequest request, DecisionNotes notes) {
    }

    /**
     * The governed tools of the request's principal in its options, the conversation in its tool
     * context, and the decisions on the conversation's proposals before the user's message.
     */
    private Prepared prepare(ChatClientRequest request) {
        Prompt prompt = request.prompt();
        if (!(prompt.getOptions() instanceof ToolCallingChatOptions options)) {
            return new Prepared(request, DecisionNotes.none()); // no tool calling here: the loop passes it on
        }
        Map<String, Object> toolContext = options.getToolContext() == null ? new HashMap<>() : new HashMap<>(options.getToolContext());
        Object conversation = request.context().get(ChatMemory.CONVERSATION_ID);
        if (conversation instanceof String id && !id.isBlank()) {
            toolContext.putIfAbsent(ChatMemory.CONVERSATION_ID, id);
        }
        Principal principal;
        try {
            principal = tools.principalFor(new ToolContext(toolContext));
        } catch (RuntimeException e) {
            LOG.error("The principal of a Spring AI request could not be resolved; no governed tools are offered",
                    LOGGED.redactThrowable(e));
            principal = null;
        }
        List<ToolCallback> callbacks = new ArrayList<>(options.getToolCallbacks() == null ? List.of() : options.getToolCallbacks());
        DecisionNotes notes = DecisionNotes.none();
        if (principal != null) {
            Set<String> present = new LinkedHashSet<>();
            callbacks.forEach(c -> present.add(c.getToolDefinition().name()));
            for (ToolCallback governed : tools.callbacksFor(principal)) {
                if (present.add(governed.getToolDefinition().name())) {
                    callbacks.add(governed);
                }
            }
            notes = take(principal, toolContext);
        }
        ToolCallingChatOptions ready = (ToolCallingChatOptions) options.mutate().toolCallbacks(callbacks)
                .toolContext(toolContext).build();
        Prompt augmented = new Prompt(prompt.getInstructions(), ready);
        if (!notes.isEmpty()) {
            String text = notes.text(ToolgateToolCallbacks::chatNameOf);
            augmented = augmented.augmentUserMessage(user -> prepend(user, text));
        }
        return new Prepared(request.mutate().prompt(augmented).build(), notes);
    }

    private DecisionNotes take(Principal principal, Map<String, Object> toolContext) {
        try {
            CallContext context = tools.contextFor(principal, new ToolContext(toolContext));
            DecisionNotes notes = tools.gate().conversations().takeDecisions(context);
            notes.decisions().stream().map(Decision::proposalId).forEach(tools::decided);
            return notes;
        } catch (RuntimeException e) {
            LOG.warn("The decisions on this conversation's proposals could not be read; they are told on a later turn: {}",
                    TextCap.forLog(LOGGED.redactText(e.toString())));
            return DecisionNotes.none();
        }
    }

    private static UserMessage prepend(UserMessage user, String notes) {
        String text = user.getText();
        return user.mutate().text(text == null || text.isEmpty() ? notes : notes + "\n\n" + text).build();
    }

    /** Configures a {@link ToolgateAdvisor}. */
    public static final class Builder {

        private final ToolgateToolCallbacks tools;
        private int order = ToolCallingAdvisor.DEFAULT_ORDER;
        private boolean conversationHistory = true;
        private int maxCallsPerTurn = DEFAULT_MAX_CALLS_PER_TURN;

        private Builder(ToolgateToolCallbacks tools) {
            this.tools = Objects.requireNonNull(tools, "tools");
        }

        /**
         * The advisor's order; Spring AI's tool-calling order by default. A chat memory advisor with a higher
         * order runs inside the loop, once per model call: then set {@link #conversationHistory(boolean)}
         * false, as Spring AI does for its own advisor.
         */
        public Builder order(int order) {
            if (order <= BaseAdvisor.HIGHEST_PRECEDENCE || order >= BaseAdvisor.LOWEST_PRECEDENCE) {
                throw new IllegalArgumentException("order must be between HIGHEST_PRECEDENCE and LOWEST_PRECEDENCE, got " + order);
            }
            this.order = order;
            return this;
        }

        /** Whether the loop keeps the turn's history itself (true by default; see {@link #order(int)}). */
        public Builder conversationHistory(boolean enabled) {
            this.conversationHistory = enabled;
            return this;
        }

        /**
         * Most tool calls the model may make in one user turn (default {@value #DEFAULT_MAX_CALLS_PER_TURN});
         * past it, the response's remaining calls are answered {@code over_limit} without running and the
         * loop ends, returning Spring AI's limit message to the host.
         */
        public Builder maxCallsPerTurn(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxCallsPerTurn must be at least 1, got " + max);
            }
            this.maxCallsPerTurn = max;
            return this;
        }

        /** The advisor. */
        public ToolgateAdvisor build() {
            return new ToolgateAdvisor(this);
        }
    }
}
