package dev.toolgate.mcp;

import dev.toolgate.Toolgate;
import dev.toolgate.call.Consent;
import dev.toolgate.policy.PermissionMode;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpAsyncServer;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/** Settings every MCP server shares, whatever its transport: the builders of {@link ToolgateMcpServer} extend it. */
public abstract class McpServerBuilder<B extends McpServerBuilder<B>> {

    private static final Pattern TOOL_NAME = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

    final Toolgate toolgate;
    PermissionMode permissionMode = PermissionMode.APPROVE;
    String applyToolName = ToolgateMcpServer.APPLY_TOOL;
    boolean applyToolNamed;
    McpToolNames toolNames = McpToolNames.standard();
    String serverName = "toolgate";
    String serverVersion = "0.1.0";
    String instructions;
    Duration requestTimeout = Duration.ofMinutes(5);
    McpCatalog catalog;
    Consent consent = Consent.USER;
    boolean destructiveWithoutElicitation;
    boolean tasks = true;
    Duration taskTtl = Duration.ofDays(1);
    Duration taskPollInterval = Duration.ofSeconds(2);
    Duration taskResultWait = Duration.ofSeconds(50);
    int maxTaskWaits = 16;

    McpServerBuilder(Toolgate toolgate) {
        this.toolgate = Objects.requireNonNull(toolgate, "toolgate");
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }

    /**
     * The conversation's permission mode for every call (default APPROVE: every mutation waits for
     * apply; AUTO applies MUTATE proposals at once, never DESTRUCTIVE ones).
     */
    public B permissionMode(PermissionMode mode) {
        this.permissionMode = Objects.requireNonNull(mode, "mode");
        return self();
    }

    /**
     * Who consents to a change made over this server. {@link Consent#USER} (the default) keeps the token
     * as the consent gate: the client receives each proposal's token (status {@code awaiting_user}) and
     * applies it through the apply tool after its user agreed, and approves or rejects a paused run's
     * step through {@code toolgate.approve} / {@code toolgate.reject}; so the guarantee is only as good
     * as the client's own confirmation. {@link Consent#OPERATOR}: the client never receives a token and
     * is offered no apply, approve, reject or rollback tool; every proposal and paused step waits for an
     * operator in the inbox or the console (status {@code awaiting_operator}). OPERATOR cannot be
     * combined with the AUTO permission mode ({@code start()} throws).
     */
    public B consent(Consent consent) {
        this.consent = Objects.requireNonNull(consent, "consent");
        return self();
    }

    /**
     * With {@link Consent#USER}: whether a client that cannot elicit (ask its user to confirm) may apply
     * a DESTRUCTIVE change, or approve a DESTRUCTIVE step of a run, on the tool call alone. Default
     * false: such a change is answered {@code not_applied} (code {@code confirmation_unavailable}) and
     * stays pending for an operator or a client that can confirm. Allow it only for clients whose own
     * interface asks the user before every tool call.
     */
    public B allowDestructiveWithoutElicitation(boolean allow) {
        this.destructiveWithoutElicitation = allow;
        return self();
    }

    /** The consent rules of one server. */
    ClientConsent clientConsent() {
        if (consent == Consent.OPERATOR && permissionMode == PermissionMode.AUTO) {
            throw new IllegalStateException("consent(OPERATOR) with permissionMode(AUTO): AUTO applies mutations without "
                    + "anyone's consent, OPERATOR promises an operator decides each one; choose one");
        }
        return new ClientConsent(consent, destructiveWithoutElicitation, applyName());
    }

    /** The apply tool's name (default {@value ToolgateMcpServer#APPLY_TOOL}); 1-64 characters of {@code A-Za-z0-9_.-}. */
    public B applyToolName(String name) {
        if (name == null || !TOOL_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("applyToolName must be 1-64 characters of A-Za-z0-9_.-, got '" + name + "'");
        }
        this.applyToolName = name;
        this.applyToolNamed = true;
        return self();
    }

    /**
     * How the gate's tool names become MCP tool names (default {@link McpToolNames#standard()}), such
     * as {@code toolNames(McpToolNames.replacing('.', '_'))} for clients that refuse dots. Calls by the
     * MCP name run the gate's tool. Two tools mapped to one name, or a name outside MCP's rule, make
     * {@code start()} throw {@link IllegalStateException} naming both tools; for tools registered
     * later the offending tool is left out with an ERROR log. Unless {@link #applyToolName} is set,
     * the apply tool's name goes through the mapping too ({@code toolgate_apply}).
     */
    public B toolNames(McpToolNames names) {
        this.toolNames = Objects.requireNonNull(names, "names");
        return self();
    }

    /** The apply tool's name: as set, else {@value ToolgateMcpServer#APPLY_TOOL} through the name mapping. */
    String applyName() {
        if (applyToolNamed) {
            return applyToolName;
        }
        String mapped = toolNames.mcpName(ToolgateMcpServer.APPLY_TOOL);
        if (!McpToolNames.isValid(mapped)) {
            throw new IllegalStateException("toolNames maps " + ToolgateMcpServer.APPLY_TOOL + " to '" + mapped
                    + "', which is not 1-128 characters of A-Za-z0-9_.-; set applyToolName");
        }
        return mapped;
    }

    /** The name and version the server reports in {@code initialize} (default {@code toolgate 0.1.0}). */
    public B serverInfo(String name, String version) {
        this.serverName = Objects.requireNonNull(name, "name");
        this.serverVersion = Objects.requireNonNull(version, "version");
        return self();
    }

    /** Instructions for the model sent in {@code initialize} (default: how proposals and apply work). */
    public B instructions(String instructions) {
        this.instructions = instructions;
        return self();
    }

    /** How long to wait for the client to answer a request of the server, such as an elicitation (default 5 minutes). */
    public B requestTimeout(Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("requestTimeout must be positive");
        }
        this.requestTimeout = timeout;
        return self();
    }

    /**
     * Resources, resource templates and prompts to serve next to the tools, each shown only to the
     * principals the gate's resolver allows (see {@link McpCatalog}). Default: none, and the server
     * advertises no resources, prompts or completions.
     */
    public B catalog(McpCatalog catalog) {
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        return self();
    }

    /**
     * Whether the server serves MCP tasks (default true): it declares the {@code tasks} capability, marks
     * the tools that may wait for consent ({@code execution.taskSupport: "optional"}: MUTATE and
     * DESTRUCTIVE tools, the programs' run tools, tools that start runs), accepts their
     * {@code tools/call} as a task, and answers {@code tasks/get}, {@code tasks/list},
     * {@code tasks/cancel} and {@code tasks/result}. A task is the proposal or run the call made, read
     * from the gate's store: it belongs to its principal, survives a restart, is seen from every instance,
     * and is decided in the console or the inbox like any proposal. See the module README.
     */
    public B tasks(boolean serve) {
        this.tasks = serve;
        return self();
    }

    /**
     * How long after its creation a task is answered for (default 1 day); past it, {@code tasks/get}
     * answers that the task expired. A ttl the client asks for is not honoured: a task lives as long as
     * its proposal or run, which the gate's retention keeps and purges.
     */
    public B taskTtl(Duration ttl) {
        this.taskTtl = positive(ttl, "taskTtl");
        return self();
    }

    /** The {@code pollInterval} suggested to clients polling {@code tasks/get} (default 2 seconds). */
    public B taskPollInterval(Duration interval) {
        this.taskPollInterval = positive(interval, "taskPollInterval");
        return self();
    }

    /**
     * How long a {@code tasks/result} waits for an unfinished task (default 50 seconds, under the usual
     * 60-second client request timeout) before answering {@link ToolgateMcpServer#TASK_NOT_FINISHED};
     * the task goes on. At most {@code maxWaiting} requests wait at once (default 16); more are answered
     * at once the same way, so waiting clients cannot take every request thread.
     */
    public B taskResultWait(Duration wait, int maxWaiting) {
        this.taskResultWait = positive(wait, "taskResultWait");
        if (maxWaiting < 1) {
            throw new IllegalArgumentException("maxWaiting must be at least 1, got " + maxWaiting);
        }
        this.maxTaskWaits = maxWaiting;
        return self();
    }

    private static Duration positive(Duration value, String name) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, got " + value);
        }
        return value;
    }

    /** The JSON mapper of one server: with tasks, one that writes the task capability and task support. */
    McpJsonMapper mapper(ToolBridge bridge) {
        return tasks ? TaskJson.mapper(bridge.tasks()::mayWait) : McpJsonDefaults.getMapper();
    }

    /**
     * The task dispatcher of one server, or null when it serves no tasks; {@code channel} asks a
     * session's user (null: the transport cannot, and only operators decide tasks).
     */
    TaskDispatch taskDispatch(ToolBridge bridge, McpJsonMapper mapper, TaskConsent.Channel channel) {
        if (!tasks || !TaskJson.advertises(mapper)) {
            return null;
        }
        McpTasks served = new McpTasks(toolgate, taskTtl, taskPollInterval, consent == Consent.OPERATOR, bridge::wireName);
        TaskConsent users = consent == Consent.USER && channel != null ? new TaskConsent(toolgate, bridge, channel) : null;
        return new TaskDispatch(toolgate, bridge, served,
                new TaskResults(toolgate, served, bridge::wireName, taskResultWait, maxTaskWaits, users), users);
    }

    /** The catalog's dispatcher for one server, or null without a catalog. */
    CatalogDispatch catalogDispatch() {
        return catalog == null ? null : new CatalogDispatch(catalog, toolgate.resolver());
    }

    /**
     * The SDK server for either transport, configured the same way: the gate's tools behind the
     * bridge. Built from asynchronous specifications so that the list filter runs on the calling
     * thread (see {@link ToolBridge}).
     */
    McpAsyncServer server(McpServer.AsyncSpecification<?> spec, ToolBridge bridge, McpJsonMapper mapper,
                          CatalogDispatch catalogDispatch) {
        McpSchema.ServerCapabilities.Builder capabilities = McpSchema.ServerCapabilities.builder().tools(true).logging();
        return spec.serverInfo(serverName, serverVersion)
                .instructions(instructionsOrDefault())
                .capabilities((catalogDispatch == null ? capabilities : catalogDispatch.advertise(capabilities)).build())
                .validateToolInputs(false)
                .requestTimeout(requestTimeout)
                .jsonMapper(mapper)
                .tools(bridge.specifications())
                .addToolFilter(bridge.filter())
                .build();
    }

    String instructionsOrDefault() {
        if (instructions != null) {
            return instructions;
        }
        if (consent == Consent.OPERATOR) {
            return "Tools that only read run directly. Tools that change something never run directly: they return a "
                    + "proposal with status awaiting_operator, a summary and a diff. An operator approves or rejects it "
                    + "outside this conversation; tell the user what will change and that it awaits an operator. Do not "
                    + "propose the same change again. Results with isError true explain what to fix.";
        }
        return "Tools that only read run directly. Tools that change something never run directly: they return a "
                + "proposal with status awaiting_user, a summary, a diff and a token. Show the user the summary and "
                + "diff; only after they agree, call " + applyName() + " with the token. Results with isError true "
                + "explain what to fix.";
    }
}

