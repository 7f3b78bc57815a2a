package dev.toolgate.langchain4j;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderRequest;
import dev.langchain4j.service.tool.ToolProviderResult;
import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.Consent;
import dev.toolgate.call.Proposal;
import dev.toolgate.policy.PermissionMode;
import dev.toolgate.tool.Effect;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolDescriptor;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Offers a gate's tools to LangChain4j {@code AiServices}: on every request it resolves the caller
 * (from the chat memory id or the invocation parameters, through a host function) and gives exactly
 * the tools that caller may see, each a {@link ToolSpecification} carrying the gate's JSON Schema
 * and an executor that runs {@link Toolgate#call}.
 *
 * <pre>{@code
 * ToolgateToolProvider tools = ToolgateToolProvider.builder(gate)
 *         .principal(request -> users.byId((String) request.chatMemoryId()))
 *         .onProposal(proposal -> inbox.show(proposal))   // the host keeps the token
 *         .build();
 * Assistant assistant = tools.configure(AiServices.builder(Assistant.class)).chatModel(model)
 *         .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
 * }</pre>
 *
 * <p>{@link #configure} wires the whole consent loop: every tool call answered (a function that was not
 * offered too), each model response one {@link dev.toolgate.call.Turn}, and the decisions on the
 * conversation's proposals told to the model on its next turn.
 *
 * <p>What the model gets back is always JSON text, never an exception thrown through the tool loop:
 * a read's result ({@code status: executed}), a proposal ({@code status: awaiting_user} or {@code awaiting_operator}, per {@link Builder#consent}, with
 * summary, payload and diff), validation feedback ({@code invalid}), a duplicate, a denial
 * ({@code denied} or {@code forbidden}), {@code over_budget} with {@code retryAfterSeconds}, or a
 * failed execution. Mutations never run from a model's call: calls run in permission mode
 * {@link PermissionMode#APPROVE}, so a mutation comes back as a proposal and runs only when the host
 * calls {@link #apply} with its token (or an operator approves it in the inbox).
 *
 * <p>The proposal token is not shown to the model unless {@link Builder#exposeToken(boolean)} says so:
 * a model that holds a token could be talked into asking for its application, and the consent step
 * is the human's. The host receives every proposal, token included, through
 * {@link Builder#onProposal(Consumer)}.
 *
 * <p>Qualified names are offered through {@link ToolNames} ({@code incident.create} as
 * {@code incident__create}). A caller with no principal (the function returns null) gets no tools.
 */
public final class ToolgateToolProvider implements ToolProvider {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateToolProvider.class);
    /** The transport recorded in the audit trail. */
    public static final String TRANSPORT = "langchain4j";

    private final Toolgate gate;
    private final Function<ToolProviderRequest, CallContext> context;
    private final boolean exposeToken;
    private final Consumer<Proposal> onProposal;
    private final Consent consent;
    private final Invocations invocations;

    private ToolgateToolProvider(Builder builder) {
        this.gate = builder.gate;
        this.context = builder.context;
        this.exposeToken = builder.exposeToken;
        this.onProposal = builder.onProposal;
        this.consent = builder.consent != null ? builder.consent
                : builder.onProposal != null || builder.exposeToken ? Consent.USER : Consent.OPERATOR;
        this.invocations = new Invocations(builder.gate);
    }

    /** Starts a provider for {@code gate}. */
    public static Builder builder(Toolgate gate) {
        return new Builder(gate);
    }

    @Override
    public ToolProviderResult provideTools(ToolProviderRequest request) {
        ToolProviderResult.Builder result = ToolProviderResult.builder();
        CallContext call = context.apply(request);
        if (call == null) {
            return result.build();
        }
        call = call.withPermissionMode(PermissionMode.APPROVE);
        if (call.transport() == null) {
            call = call.withTransport(TRANSPORT);
        }
        List<RegisteredTool> visible = gate.resolveTools(call.principal());
        ToolNames names = ToolNames.lenient(visible.stream().map(RegisteredTool::name).toList(),
                problem -> LOG.error("Tool left out of the LangChain4j tools: {}", problem));
        Invocations.Invocation invocation = invocations.start(request.invocationContext(), request.chatMemoryId(), call);
        for (RegisteredTool tool : visible) {
            String wire = names.wireName(tool.name()).orElse(null);
            if (wire == null) {
                continue;
            }
            ToolSpecification specification = specification(wire, tool.descriptor());
            result.add(specification, new GateToolExecutor(gate, tool.name(), wire, tool.effect().mutates(), invocation,
                    exposeToken, onProposal, consent));
        }
        return result.build();
    }

    /**
     * Wires an AI service for the whole consent loop, the safe default: this provider's tools; every
     * tool call answered, a function that was not offered (a hidden tool, a made-up name) with the same
     * {@code unknown_tool} result and never an exception; each model response one
     * {@link dev.toolgate.call.Turn} (the same call twice makes one proposal, the second answered
     * {@code duplicate}); and before the user's message, the decisions made since the conversation's last
     * turn on the proposals it made (applied with the result, failed, declined with the reason, expired,
     * edited), each exactly once across instances and never with a token. Configure the rest of the AI
     * service (model, memory) on the builder it returns.
     *
     * <pre>{@code
     * Assistant assistant = tools.configure(AiServices.builder(Assistant.class))
     *         .chatModel(model)
     *         .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
     *         .build();
     * }</pre>
     *
     * <p>It sets the builder's {@code toolProvider}, {@code hallucinatedToolNameStrategy} and
     * {@code chatRequestTransformer}, and registers listeners; a host that needs its own request
     * transformer calls {@link #tellDecisions} from it.
     */
    public <T> AiServices<T> configure(AiServices<T> services) {
        Objects.requireNonNull(services, "services");
        return services.toolProvider(this)
                .hallucinatedToolNameStrategy(unknownToolReply())
                .chatRequestTransformer(this::tellDecisions)
                .registerListeners(invocations.listeners());
    }

    /**
     * The chat request with the decisions its AI service invocation tells placed before the user's
     * message (see {@link #configure}); the request itself when there are none. For a host with its own
     * {@code chatRequestTransformer}: call this from it.
     */
    public ChatRequest tellDecisions(ChatRequest request, Object memoryId) {
        return invocations.tell(request, memoryId);
    }

    /** The function name the model knows a tool by, or the qualified name if it has none. */
    static String functionNameOf(String qualifiedName) {
        try {
            return ToolNames.encode(qualifiedName);
        } catch (ToolNameException e) {
            return qualifiedName;
        }
    }

    /**
     * Applies a proposal the model's call produced: the host's consent path (a confirm button, an
     * operator's decision). Checks exactly what {@link Toolgate#apply} checks.
     *
     * @param context the applier; their rights are checked again
     * @param token   the proposal's token, from {@link Builder#onProposal(Consumer)}
     * @throws dev.toolgate.call.ProposeApplyException if the token is malformed, unknown, expired, used,
     *                                                 or the applier may not apply it
     */
    public Applied apply(CallContext context, String token) {
        return gate.apply(context, token);
    }

    /**
     * A reply for {@code AiServices.hallucinatedToolNameStrategy(...)}: a call of a function that was
     * not offered (a hidden tool, a name the model made up) is answered with
     * {@code {"status":"unknown_tool", ...}} instead of LangChain4j's default, which throws out of the
     * AI service. Nothing runs either way: no executor exists for a tool that was not offered.
     */
    public static Function<ToolExecutionRequest, ToolExecutionResultMessage> unknownToolReply() {
        return request -> ToolExecutionResultMessage.from(request, ToolOutcomes.unknownTool(request.name()).text());
    }

    static ToolSpecification specification(String wireName, ToolDescriptor descriptor) {
        SchemaConverter.Converted converted = SchemaConverter.convert(descriptor.inputSchema());
        StringBuilder description = new StringBuilder(descriptor.description());
        if (descriptor.effect() != Effect.READ) {
            description.append(descriptor.description().isEmpty() ? "" : "\n").append("Effect: ")
                    .append(descriptor.effect().wireName())
                    .append(". Calling it proposes the change; nothing changes until an operator approves it.");
        }
        if (!converted.rootNotes().isEmpty()) {
            description.append('\n').append(converted.rootNotes());
        }
        return ToolSpecification.builder().name(wireName).description(description.toString())
                .parameters(converted.schema()).build();
    }

    /** Configures a {@link ToolgateToolProvider}. */
    public static final class Builder {
        private final Toolgate gate;
        private Function<ToolProviderRequest, CallContext> context;
        private boolean exposeToken;
        private Consumer<Proposal> onProposal;
        private Consent consent;

        private Builder(Toolgate gate) {
            this.gate = Objects.requireNonNull(gate, "gate");
        }

        /**
         * Who is calling: from the request's {@code chatMemoryId()} or {@code invocationParameters()}.
         * Returning null offers no tools. The call context is the principal's, with the memory id as
         * session and transport {@value #TRANSPORT}.
         */
        public Builder principal(Function<ToolProviderRequest, Principal> principal) {
            Objects.requireNonNull(principal, "principal");
            this.context = request -> {
                Principal p = principal.apply(request);
                if (p == null) {
                    return null;
                }
                CallContext call = CallContext.of(p).withTransport(TRANSPORT);
                Object memoryId = request.chatMemoryId();
                return memoryId == null ? call : call.withSession(String.valueOf(memoryId));
            };
            return this;
        }

        /**
         * The whole call context (tenant, session, automation) per request, instead of
         * {@link #principal}. Returning null offers no tools. The permission mode is always APPROVE.
         */
        public Builder context(Function<ToolProviderRequest, CallContext> context) {
            this.context = Objects.requireNonNull(context, "context");
            return this;
        }

        /**
         * Whether a proposal's token is shown to the model. Default false: the token goes only to
         * {@link #onProposal(Consumer)}, so the model can neither apply nor relay it.
         */
        public Builder exposeToken(boolean exposeToken) {
            this.exposeToken = exposeToken;
            return this;
        }

        /**
         * Who consents to the proposals the model's calls make, which the proposal's status tells the
         * model: {@link Consent#USER} ({@code awaiting_user}: the host shows the user the proposal from
         * {@link #onProposal} and applies it with {@link ToolgateToolProvider#apply}) or
         * {@link Consent#OPERATOR} ({@code awaiting_operator}: only an operator decides, in the inbox or
         * the console). Default: USER when {@link #onProposal} is set or the token is exposed, else
         * OPERATOR. OPERATOR with {@link #exposeToken exposeToken(true)} fails the build.
         */
        public Builder consent(Consent consent) {
            this.consent = Objects.requireNonNull(consent, "consent");
            return this;
        }

        /** Receives every proposal a model's call produced, token included, to show or store for consent. */
        public Builder onProposal(Consumer<Proposal> onProposal) {
            this.onProposal = Objects.requireNonNull(onProposal, "onProposal");
            return this;
        }

        /**
         * Builds the provider.
         *
         * @throws IllegalStateException if neither {@link #principal} nor {@link #context} was given, or OPERATOR
         *                               consent with the token exposed
         * @throws ToolNameException     if a registered tool's name cannot be offered or collides with another
         */
        public ToolgateToolProvider build() {
            if (context == null) {
                throw new IllegalStateException("ToolgateToolProvider needs principal(...) or context(...)");
            }
            if (consent == Consent.OPERATOR && exposeToken) {
                throw new IllegalStateException("consent(OPERATOR) with exposeToken(true): a model holding the token can "
                        + "apply without an operator; choose one");
            }
            ToolNames.of(gate.registry().tools().stream().map(RegisteredTool::name).toList());
            return new ToolgateToolProvider(this);
        }
    }
}
