package dev.toolgate.langchain4j;

import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.observability.api.listener.AiServiceCompletedListener;
import dev.langchain4j.observability.api.listener.AiServiceErrorListener;
import dev.langchain4j.observability.api.listener.AiServiceListener;
import dev.langchain4j.observability.api.listener.AiServiceResponseReceivedListener;
import dev.langchain4j.service.memory.ChatMemoryService;
import dev.toolgate.Toolgate;
import dev.toolgate.conversation.DecisionNotes;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Redactor;
import dev.toolgate.json.TextCap;
import dev.toolgate.call.Turn;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The AI service invocations a {@link ToolgateToolProvider} is serving, for the consent loop: each one's
 * call context, its current model response (a {@link Turn}), and the
 * decisions it tells its conversation. Fed by the hooks {@link ToolgateToolProvider#configure} installs:
 * a response received starts a new turn, the chat request transformer puts the decisions before the
 * user's message, an error gives them back, the end of an invocation forgets it. At most
 * {@value #MAX} invocations are kept (the oldest go first), so an invocation whose end was never heard
 * cannot grow the map.
 */
final class Invocations {

    private static final Logger LOG = LoggerFactory.getLogger(Invocations.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes) and capped. */
    private static final Redactor LOGGED = Redactor.defaults();
    static final int MAX = 10_000;

    /** One invocation of an AI service method. */
    static final class Invocation {
        final CallContext context;
        final Object memoryId;
        private volatile Turn turn = Turn.start();
        /** Taken by the first model request of the invocation; null until then. */
        private volatile DecisionNotes notes;

        Invocation(CallContext context, Object memoryId) {
            this.context = context;
            this.memoryId = memoryId;
        }

        /** The current model response. */
        Turn turn() {
            return turn;
        }
    }

    private final Toolgate gate;
    private final Map<UUID, Invocation> byId = new LinkedHashMap<>();
    /** By conversation, for requests on other threads (streaming); never the shared default memory id. */
    private final Map<Object, Invocation> byMemory = new LinkedHashMap<>();
    /** The invocation the current thread runs: an AI service runs a blocking call's requests on its thread. */
    private final ThreadLocal<Invocation> current = new ThreadLocal<>();

    Invocations(Toolgate gate) {
        this.gate = gate;
    }

    /** The invocation of {@code invocation} (null if LangChain4j gave none: then it is not tracked). */
    synchronized Invocation start(InvocationContext invocation, Object memoryId, CallContext context) {
        Invocation started = new Invocation(context, memoryId);
        if (invocation == null || invocation.invocationId() == null) {
            return started;
        }
        current.set(started);
        byId.put(invocation.invocationId(), started);
        if (memoryId != null && !ChatMemoryService.DEFAULT.equals(memoryId)) {
            byMemory.remove(memoryId); // re-inserted last: the newest invocation of a conversation
            byMemory.put(memoryId, started);
        }
        trim(byId);
        trim(byMemory);
        return started;
    }

    private static void trim(Map<?, Invocation> map) {
        var oldest = map.keySet().iterator();
        while (map.size() > MAX && oldest.hasNext()) {
            oldest.next();
            oldest.remove();
        }
    }

    private synchronized Invocation of(InvocationContext invocation) {
        return invocation == null || invocation.invocationId() == null ? null : byId.get(invocation.invocationId());
    }

    private synchronized Invocation end(InvocationContext invocation) {
        Invocation ended = invocation == null || invocation.invocationId() == null ? null : byId.remove(invocation.invocationId());
        if (ended != null) {
            byMemory.values().removeIf(i -> i == ended);
            if (current.get() == ended) {
                current.remove();
            }
        }
        return ended;
    }

    /**
     * The chat request with the decisions its invocation tells placed before the user's message: taken
     * from the store by the invocation's first request, and repeated in every later request of it (the
     * tool loop rebuilds its requests from the chat memory, which does not hold them).
     */
    ChatRequest tell(ChatRequest request, Object memoryId) {
        Invocation invocation = current.get();
        if (invocation == null || !java.util.Objects.equals(invocation.memoryId, memoryId)) {
            synchronized (this) {
                invocation = memoryId == null ? null : byMemory.get(memoryId);
            }
        }
        if (invocation == null) {
            return request;
        }
        DecisionNotes notes = invocation.notes;
        if (notes == null) {
            notes = take(invocation.context);
            invocation.notes = notes;
        }
        if (notes.isEmpty()) {
            return request;
        }
        return request.toBuilder().messages(prepend(request.messages(), notes.text(ToolgateToolProvider::functionNameOf))).build();
    }

    private DecisionNotes take(CallContext context) {
        try {
            return gate.conversations().takeDecisions(context);
        } catch (RuntimeException e) {
            LOG.warn("The decisions on this conversation's proposals could not be read; they are told on a later turn: {}",
                    TextCap.forLog(LOGGED.redactText(e.toString())));
            return DecisionNotes.none();
        }
    }

    private static List<ChatMessage> prepend(List<ChatMessage> messages, String notes) {
        List<ChatMessage> out = new ArrayList<>(messages);
        for (int i = out.size() - 1; i >= 0; i--) {
            if (out.get(i) instanceof UserMessage user) {
                List<Content> contents = new ArrayList<>();
                contents.add(TextContent.from(notes));
                contents.addAll(user.contents());
                out.set(i, user.toBuilder().contents(contents).build());
                return out;
            }
        }
        out.add(UserMessage.from(notes));
        return out;
    }

    /** The listeners that keep track of responses and ends. */
    List<AiServiceListener<?>> listeners() {
        AiServiceResponseReceivedListener response = event -> {
            Invocation invocation = of(event.invocationContext());
            if (invocation != null) {
                invocation.turn = Turn.start();
            }
        };
        AiServiceCompletedListener completed = event -> end(event.invocationContext());
        AiServiceErrorListener failed = event -> {
            Invocation invocation = end(event.invocationContext());
            DecisionNotes notes = invocation == null ? null : invocation.notes;
            if (notes != null) {
                notes.release();
            }
        };
        return List.of(response, completed, failed);
    }
}
