package dev.toolgate.springai;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.call.Applied;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ProposalClosedException;
import dev.toolgate.call.Consent;
import dev.toolgate.call.Proposal;
import dev.toolgate.call.TokenAlreadyUsedException;
import dev.toolgate.call.TokenExpiredException;
import dev.toolgate.call.UnknownProposalException;
import dev.toolgate.tool.RegisteredTool;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.ToolCallbackProvider;

/**
 * Governed Toolgate tools as Spring AI tools. {@link #getToolCallbacks()} is asked on every
 * {@code ChatClient} request and offers exactly the tools the current principal may see, each under its
 * chat name ({@link ChatToolNames}) with the gate's description and JSON Schema. A model's call runs
 * {@link Toolgate#call}: a read returns its result; a mutation returns a proposal (status
 * {@code awaiting_operator}, summary, payload, diff) and changes nothing; invalid arguments, a denial, a
 * forbidden or unknown tool and an exhausted budget (with {@code retryAfterSeconds}) are results too,
 * never exceptions thrown into Spring AI.
 *
 * <pre>{@code
 * ToolgateToolCallbacks tools = ToolgateToolCallbacks.builder(gate)
 *         .principal(() -> currentUser())          // who the request is for, asked per request
 *         .build();
 * ChatClient chat = ChatClient.builder(chatModel).defaultAdvisors(tools.advisor()).build();
 * String answer = chat.prompt(question).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, conversationId))
 *         .call().content();
 * Applied done = tools.apply(CallContext.of(currentUser()), proposalId);   // after the user agreed
 * }</pre>
 *
 * <p>{@link #advisor()} is the safe default: every tool call of a response answered in order (a name
 * that was not offered too), one {@link dev.toolgate.call.Turn} per response, and the decisions on the
 * conversation's proposals told to the model. Offered with {@code .toolCallbacks(tools)} instead, the
 * tools are governed the same, but the loop is Spring AI's own (see {@link ToolgateAdvisor}).
 *
 * <p><b>The token.</b> By default the model never sees a proposal's token: it gets the
 * {@code proposalId} (the audit call id) and summary, and this provider holds the token in memory until
 * the host calls {@link #apply(CallContext, String)} (or it expires). A host that keeps its own confirm
 * cards can take each {@link Proposal} (with its token) from {@link Builder#onProposal(Consumer)} and
 * call {@link Toolgate#apply} itself; any host can also approve by id in the inbox
 * ({@link Toolgate#approve}), which works across instances. {@link Builder#showTokenToModel(boolean)}
 * puts the token in the model's result, for hosts whose model relays it to a client that applies it.
 *
 * <p>Calls use permission mode APPROVE unless the host's {@link Builder#context} says otherwise; an
 * operator's explicit ALLOW on a mutating tool is a standing approval and applies it (see the policy
 * docs). Thread-safe.
 */
public final class ToolgateToolCallbacks implements ToolCallbackProvider {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateToolCallbacks.class);
    /** Exceptions are logged with every message in them redacted (the default terms and shapes). */
    private static final dev.toolgate.json.Redactor LOGGED = dev.toolgate.json.Redactor.defaults();
    /** The transport recorded in the audit trail for calls through this adapter. */
    public static final String TRANSPORT = "spring-ai";

    private final Toolgate gate;
    private final Supplier<Principal> principal;
    private final Function<ToolContext, Principal> principalFromToolContext;
    private final BiFunction<CallContext, ToolContext, CallContext> context;
    private final boolean showToken;
    private final Consumer<Proposal> onProposal;
    private final HeldTokens held;
    private final Consent consent;

    private ToolgateToolCallbacks(Builder b) {
        this.gate = b.gate;
        this.principal = b.principal;
        this.principalFromToolContext = b.principalFromToolContext;
        this.context = b.context;
        this.showToken = b.showToken;
        this.onProposal = b.onProposal;
        this.held = new HeldTokens(b.maxHeldTokens, b.clock);
        this.consent = b.consent != null ? b.consent : b.onProposal != null || b.showToken ? Consent.USER : Consent.OPERATOR;
    }

    /** Starts a provider over {@code gate}; a principal source is required. */
    public static Builder builder(Toolgate gate) {
        return new Builder(gate);
    }

    /**
     * The tools the current principal may see, resolved now. No principal means no tools. A tool whose
     * name cannot be offered (see {@link ChatToolNames}) is left out with an ERROR log; {@link Builder#build()}
     * already refuses such names among the tools registered at build time.
     */
    @Override
    public ToolCallback[] getToolCallbacks() {
        Principal current = principal.get();
        return current == null ? new ToolCallback[0] : callbacksFor(current).toArray(new ToolCallback[0]);
    }

    /** The callbacks of the tools {@code current} may see, resolved now. */
    List<ToolCallback> callbacksFor(Principal current) {
        List<RegisteredTool> visible = gate.resolveTools(current);
        Map<String, RegisteredTool> byQualified = new LinkedHashMap<>();
        visible.forEach(tool -> byQualified.put(tool.name(), tool));
        List<ToolCallback> out = new ArrayList<>();
        Map<String, String> taken = new LinkedHashMap<>();
        for (String qualified : ChatToolNames.ordered(byQualified.keySet())) {
            String chat;
            try {
                chat = ChatToolNames.chatName(qualified);
            } catch (ChatToolNameException e) {
                LOG.error("Tool not offered to Spring AI: {}", e.getMessage());
                continue;
            }
            String other = taken.putIfAbsent(chat, qualified);
            if (other != null) {
                LOG.error("Tool {} not offered to Spring AI: {} already has the chat name {}", qualified, other, chat);
                continue;
            }
            out.add(new GatedToolCallback(this, chat, byQualified.get(qualified)));
        }
        return out;
    }

    /**
     * The advisor that makes the consent loop whole in a {@code ChatClient}: it offers these tools, answers
     * every tool call a model sends in order (a name it was not offered too), treats each model response
     * as one {@link dev.toolgate.call.Turn}, and tells the model the decisions on its earlier proposals.
     * Register it instead of {@code .toolCallbacks(this)}:
     * {@code ChatClient.builder(model).defaultAdvisors(tools.advisor())}. See {@link ToolgateAdvisor}.
     */
    public ToolgateAdvisor advisor() {
        return ToolgateAdvisor.builder(this).build();
    }

    /**
     * Applies a proposal the model made through this provider, by the {@code proposalId} the model saw,
     * with the token held for it. Authorization is re-checked for {@code applier} by the gate.
     *
     * @throws UnknownProposalException if no token is held for the id (never proposed here, already
     *                                  applied, expired, or proposed on another instance: approve it in the inbox)
     * @throws dev.toolgate.call.ProposeApplyException and the gate's other apply errors, unchanged
     */
    public Applied apply(CallContext applier, String proposalId) {
        Objects.requireNonNull(applier, "applier");
        String token = held.peek(proposalId).orElseThrow(() -> new UnknownProposalException(
                "No token is held for proposal '" + proposalId + "' by this ToolgateToolCallbacks: it was not proposed "
                        + "through it, was already applied, or expired. Approve it in the inbox instead"));
        try {
            Applied applied = gate.apply(applier, token);
            held.drop(proposalId);
            return applied;
        } catch (TokenAlreadyUsedException | TokenExpiredException | ProposalClosedException e) {
            held.drop(proposalId);
            throw e;
        }
    }

    /** How many proposal tokens are held for {@link #apply(CallContext, String)}. */
    public int heldTokens() {
        return held.size();
    }

    Toolgate gate() {
        return gate;
    }

    boolean showsToken() {
        return showToken;
    }

    /** Who consents to this provider's proposals: the status the model reads. */
    Consent consent() {
        return consent;
    }

    /** True if {@code toolName} starts a durable run of the program of its name (codemode.run). */
    boolean startsRuns(String toolName) {
        try {
            return gate.executions().programs().contains(toolName);
        } catch (UnsupportedOperationException e) {
            return false;
        }
    }

    Principal principalFor(ToolContext toolContext) {
        if (principalFromToolContext != null && toolContext != null) {
            return principalFromToolContext.apply(toolContext);
        }
        return principal.get();
    }

    boolean visible(Principal who, String qualifiedName) {
        return gate.resolveTools(who).stream().anyMatch(tool -> tool.name().equals(qualifiedName));
    }

    /**
     * The call context of {@code who}: transport {@code spring-ai}, the session of the request's
     * conversation ({@code ChatMemory.CONVERSATION_ID}, which {@link ToolgateAdvisor} copies into the tool
     * context), then the host's refinement.
     */
    CallContext contextFor(Principal who, ToolContext toolContext) {
        CallContext base = CallContext.of(who).withTransport(TRANSPORT);
        Object conversation = toolContext == null ? null : toolContext.getContext().get(ChatMemory.CONVERSATION_ID);
        if (conversation instanceof String id && !id.isBlank()) {
            base = base.withSession(id);
        }
        CallContext customized = context.apply(base, toolContext);
        return Objects.requireNonNull(customized, "the context function returned null");
    }

    /** The name the model knows a tool by: its chat name, or the qualified name if it has none. */
    static String chatNameOf(String qualifiedName) {
        try {
            return ChatToolNames.chatName(qualifiedName);
        } catch (ChatToolNameException e) {
            return qualifiedName;
        }
    }

    /** Decided proposals need no token any more. */
    void decided(String proposalId) {
        held.drop(proposalId);
    }

    void proposed(Proposal proposal) {
        if (!showToken) {
            held.hold(proposal);
        }
        if (onProposal != null) {
            try {
                onProposal.accept(proposal);
            } catch (RuntimeException e) {
                LOG.error("onProposal listener failed for proposal {}", proposal.callId(), LOGGED.redactThrowable(e));
            }
        }
    }

    /** Configures a {@link ToolgateToolCallbacks}. */
    public static final class Builder {

        private final Toolgate gate;
        private Supplier<Principal> principal;
        private Function<ToolContext, Principal> principalFromToolContext;
        private BiFunction<CallContext, ToolContext, CallContext> context = (ctx, toolContext) -> ctx;
        private boolean showToken;
        private Consumer<Proposal> onProposal;
        private Consent consent;
        private int maxHeldTokens = 10_000;
        private Clock clock = Clock.systemUTC();

        private Builder(Toolgate gate) {
            this.gate = Objects.requireNonNull(gate, "gate");
        }

        /**
         * Who the current request is for, asked when tools are listed (each {@code ChatClient} request)
         * and, unless {@link #principalFromToolContext} is set, when a tool is called. Return null for
         * "nobody": no tools are offered and calls are refused. Required.
         */
        public Builder principal(Supplier<Principal> principal) {
            this.principal = Objects.requireNonNull(principal, "principal");
            return this;
        }

        /**
         * Who a tool call is for, read from the request's {@code toolContext(...)} map (for example a
         * {@code "principal"} entry the host put there). The gate re-checks that this principal may see the
         * tool; a null result refuses the call.
         */
        public Builder principalFromToolContext(Function<ToolContext, Principal> principal) {
            this.principalFromToolContext = Objects.requireNonNull(principal, "principal");
            return this;
        }

        /**
         * Refines each call's context (tenant, session, turn, permission mode) from the default
         * {@code CallContext.of(principal).withTransport("spring-ai")} and the request's tool context
         * (null when Spring AI passes none).
         */
        public Builder context(BiFunction<CallContext, ToolContext, CallContext> context) {
            this.context = Objects.requireNonNull(context, "context");
            return this;
        }

        /**
         * Whether a proposal's token goes into the model's result. Default false: the model gets the
         * proposal id and summary; the token stays with the host ({@link #apply}, {@link #onProposal}).
         */
        public Builder showTokenToModel(boolean show) {
            this.showToken = show;
            return this;
        }

        /**
         * Who consents to the proposals the model's calls make, which the proposal's status tells the
         * model: {@link Consent#USER} ({@code awaiting_user}: the host shows the user a confirm card from
         * {@link #onProposal} and applies with {@link ToolgateToolCallbacks#apply}) or
         * {@link Consent#OPERATOR} ({@code awaiting_operator}: only an operator decides, in the inbox or
         * the console). Default: USER when {@link #onProposal} is set or the token is shown to the model,
         * else OPERATOR. OPERATOR with {@link #showTokenToModel showTokenToModel(true)} fails the build.
         */
        public Builder consent(Consent consent) {
            this.consent = Objects.requireNonNull(consent, "consent");
            return this;
        }

        /** Receives every proposal (with its token) the model's calls produce, for the host's confirm card. */
        public Builder onProposal(Consumer<Proposal> listener) {
            this.onProposal = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** At most this many tokens are held for {@link ToolgateToolCallbacks#apply}; default 10,000. */
        public Builder maxHeldTokens(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxHeldTokens must be at least 1, got " + max);
            }
            this.maxHeldTokens = max;
            return this;
        }

        /** The clock that expires held tokens; the system UTC clock by default. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Builds the provider.
         *
         * @throws IllegalStateException  if no principal source was set, or OPERATOR consent with the token shown
         * @throws ChatToolNameException if a registered tool's name cannot be offered or two collide
         */
        public ToolgateToolCallbacks build() {
            if (principal == null) {
                throw new IllegalStateException("ToolgateToolCallbacks needs principal(Supplier<Principal>): the tools "
                        + "offered depend on who asks");
            }
            if (consent == Consent.OPERATOR && showToken) {
                throw new IllegalStateException("consent(OPERATOR) with showTokenToModel(true): a model holding the token "
                        + "can apply without an operator; choose one");
            }
            ChatToolNames.assign(gate.registry().tools().stream().map(RegisteredTool::name).toList());
            return new ToolgateToolCallbacks(this);
        }
    }
}
