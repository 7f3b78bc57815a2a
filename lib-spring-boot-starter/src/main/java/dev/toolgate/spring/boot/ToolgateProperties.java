package dev.toolgate.spring.boot;

import dev.toolgate.call.Consent;
import dev.toolgate.call.GateSettings;
import dev.toolgate.jdbc.SchemaMode;
import dev.toolgate.policy.PermissionMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.util.unit.DataSize;

/**
 * The {@code toolgate.*} properties: the gate's settings, its storage, and the parts the starter
 * mounts in the application. Checked at startup ({@link #validate()}): a bad value stops the
 * application with {@link InvalidToolgatePropertyException} naming the property.
 */
@ConfigurationProperties(prefix = "toolgate")
public class ToolgateProperties {

    private static final GateSettings DEFAULTS = GateSettings.defaults();

    /** Where the audit trail, proposals, budgets and runs live: on the application's DataSource when it has one (auto). */
    private StoreKind store = StoreKind.AUTO;
    /** What the store does with its tables on the application's DataSource: apply (create or update), validate, or none. */
    private SchemaMode schema = SchemaMode.APPLY;
    /** Whether tools listed by plugins in META-INF/services (ServiceLoader) are registered beside the ToolProvider beans. */
    private boolean discoverPlugins = true;
    /** The access rule a principal needs to approve, reject, edit or resolve what waits for consent. */
    private String approverRule = GateSettings.DEFAULT_APPROVER_RULE;
    /** Separation of duties: whether a proposal must be approved by someone other than who proposed it. */
    private boolean requireDistinctApprover = DEFAULTS.requireDistinctApprover();
    /** How long a proposal made in a conversation waits for consent before it expires. */
    private Duration proposalTtl = DEFAULTS.interactiveTtl();
    /** How long a proposal made by an automation (no person in the loop) waits before it expires. */
    private Duration unattendedProposalTtl = DEFAULTS.unattendedTtl();
    /** How many proposals one session may have waiting at once. */
    private int maxPendingPerSession = DEFAULTS.maxPendingPerSession();
    /** How long a tool's dry-run, execution or revert may take. */
    private Duration executionTimeout = DEFAULTS.executionTimeout();
    /** The largest result a tool may return to the model (larger ones are cut, with a note). */
    private DataSize resultLimit = DataSize.ofBytes(DEFAULTS.resultLimitBytes());
    /** The largest arguments a model may send to one tool call. */
    private DataSize maxArgumentSize = DataSize.ofBytes(DEFAULTS.maxArgumentBytes());
    /** How often expired proposals and calls in doubt are swept. */
    private Duration sweepInterval = Duration.ofSeconds(60);

    private final Budget budget = new Budget();
    private final Retention retention = new Retention();
    private final Security security = new Security();
    private final SpringAi springAi = new SpringAi();
    private final Console console = new Console();
    private final Mcp mcp = new Mcp();

    /** Where the gate keeps its state. */
    public enum StoreKind {
        /** The application's DataSource (H2 or PostgreSQL) when it has exactly one, in memory otherwise. */
        AUTO,
        /** The application's DataSource; the application fails to start without one. */
        JDBC,
        /** In this process's memory: lost on restart, not shared between instances. */
        MEMORY
    }

    /** Each principal's rolling call budget, admitted in the store so it holds across instances. */
    public static class Budget {
        /** Whether calls are budgeted; false lets every principal call without limit. */
        private boolean enabled = true;
        /** Calls each principal may make per window. */
        private int calls = 60;
        /** The rolling window of the budget. */
        private Duration window = Duration.ofSeconds(60);

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean enabled) { this.enabled = enabled; }
        public int getCalls() { return calls; }
        public void setCalls(int calls) { this.calls = calls; }
        public Duration getWindow() { return window; }
        public void setWindow(Duration window) { this.window = window; }
    }

    /** How long finished records are kept before the sweep purges them. */
    public static class Retention {
        private static final dev.toolgate.call.Retention D = dev.toolgate.call.Retention.defaults();
        /** Age after which finished calls (the audit trail) are purged. */
        private Duration finishedCalls = D.finishedCalls();
        /** Age after which closed proposals are purged. */
        private Duration closedProposals = D.closedProposals();
        /** Idle time after which a session's bookkeeping is purged. */
        private Duration idleSessions = D.idleSessions();
        /** Idle time after which a principal's budget counters are purged. */
        private Duration idleBudgets = D.idleBudgets();

        public Duration getFinishedCalls() { return finishedCalls; }
        public void setFinishedCalls(Duration v) { this.finishedCalls = v; }
        public Duration getClosedProposals() { return closedProposals; }
        public void setClosedProposals(Duration v) { this.closedProposals = v; }
        public Duration getIdleSessions() { return idleSessions; }
        public void setIdleSessions(Duration v) { this.idleSessions = v; }
        public Duration getIdleBudgets() { return idleBudgets; }
        public void setIdleBudgets(Duration v) { this.idleBudgets = v; }

        dev.toolgate.call.Retention toRetention() {
            return new dev.toolgate.call.Retention(finishedCalls, closedProposals, idleSessions, idleBudgets);
        }
    }

    /** How Spring Security's Authentication becomes a Toolgate principal (see AuthorityRules). */
    public static class Security {
        /** Access rules granted per authority, such as ROLE_SUPPORT: incident.read, incident.create. */
        private Map<String, List<String>> authorityRules = new LinkedHashMap<>();
        /** Whether each authority is also a rule of its own name (SCOPE_ removed: SCOPE_incident.read is incident.read). */
        private boolean authoritiesAsRules = true;

        public Map<String, List<String>> getAuthorityRules() { return authorityRules; }
        public void setAuthorityRules(Map<String, List<String>> v) { this.authorityRules = v; }
        public boolean isAuthoritiesAsRules() { return authoritiesAsRules; }
        public void setAuthoritiesAsRules(boolean v) { this.authoritiesAsRules = v; }
    }

    /** The governed tools in Spring AI's ChatClient. */
    public static class SpringAi {
        /** Whether the starter configures the governed ToolCallbackProvider and its advisor. */
        private boolean enabled = true;
        /** Whether every ChatClient built from the application's ChatClient.Builder gets the Toolgate advisor. */
        private boolean adviseChatClients = true;
        /** The plugin id that qualifies the names of @Governed @Tool methods of the application's beans (id.tool). */
        private String pluginId = "app";
        /** Who consents to a model's proposals: user (the application applies after its user agreed) or operator (the console). */
        private Consent consent = Consent.OPERATOR;
        /** Tool calls the advisor answers in one model response before it answers the rest over_limit. */
        private int maxCallsPerTurn = 150;

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean v) { this.enabled = v; }
        public boolean isAdviseChatClients() { return adviseChatClients; }
        public void setAdviseChatClients(boolean v) { this.adviseChatClients = v; }
        public String getPluginId() { return pluginId; }
        public void setPluginId(String v) { this.pluginId = v; }
        public Consent getConsent() { return consent; }
        public void setConsent(Consent v) { this.consent = v; }
        public int getMaxCallsPerTurn() { return maxCallsPerTurn; }
        public void setMaxCallsPerTurn(int v) { this.maxCallsPerTurn = v; }
    }

    /** The operator console, mounted in the application's own web server. */
    public static class Console {
        /** Whether the console is mounted (off unless enabled). */
        private boolean enabled;
        /** Where the console is mounted. */
        private String path = "/toolgate";
        /** The Spring Security role (without ROLE_) a person needs to use the console; holders also get the approver rule. */
        private String operatorRole = "TOOLGATE_OPERATOR";
        /** Whether the session cookie is Secure with the __Host- prefix; turn off only for plain-HTTP development. */
        private boolean secureCookie = true;
        /** The longest a console session lasts. */
        private Duration sessionTimeout = Duration.ofHours(8);
        /** Other origins allowed to send changes (the console's own is always allowed). */
        private List<String> allowedOrigins = new ArrayList<>();

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean v) { this.enabled = v; }
        public String getPath() { return path; }
        public void setPath(String v) { this.path = v; }
        public String getOperatorRole() { return operatorRole; }
        public void setOperatorRole(String v) { this.operatorRole = v; }
        public boolean isSecureCookie() { return secureCookie; }
        public void setSecureCookie(boolean v) { this.secureCookie = v; }
        public Duration getSessionTimeout() { return sessionTimeout; }
        public void setSessionTimeout(Duration v) { this.sessionTimeout = v; }
        public List<String> getAllowedOrigins() { return allowedOrigins; }
        public void setAllowedOrigins(List<String> v) { this.allowedOrigins = v; }
    }

    /** The Model Context Protocol endpoint (Streamable HTTP), mounted in the application's web server. */
    public static class Mcp {
        /** Whether the MCP endpoint is mounted (off unless enabled; needs toolgate-mcp on the classpath). */
        private boolean enabled;
        /** Where the endpoint is mounted. */
        private String path = "/mcp";
        /** Who consents to a client's proposals: user (the client applies with the token) or operator (the console). */
        private Consent consent = Consent.USER;
        /** approve (mutations are proposed) or auto (applied at once; only with user consent and trusted clients). */
        private PermissionMode permissionMode = PermissionMode.APPROVE;
        /** Browser origins allowed to call the endpoint (requests without Origin are always allowed). */
        private List<String> allowedOrigins = new ArrayList<>();

        public boolean isEnabled() { return enabled; }
        public void setEnabled(boolean v) { this.enabled = v; }
        public String getPath() { return path; }
        public void setPath(String v) { this.path = v; }
        public Consent getConsent() { return consent; }
        public void setConsent(Consent v) { this.consent = v; }
        public PermissionMode getPermissionMode() { return permissionMode; }
        public void setPermissionMode(PermissionMode v) { this.permissionMode = v; }
        public List<String> getAllowedOrigins() { return allowedOrigins; }
        public void setAllowedOrigins(List<String> v) { this.allowedOrigins = v; }
    }

    /**
     * Checks every value, so that a mistake stops the start with the property's name rather than
     * surfacing later inside the gate.
     *
     * @throws InvalidToolgatePropertyException naming the first property that is wrong
     */
    public void validate() {
        PropertyChecks.check(this);
    }

    public StoreKind getStore() { return store; }
    public void setStore(StoreKind store) { this.store = store; }
    public SchemaMode getSchema() { return schema; }
    public void setSchema(SchemaMode schema) { this.schema = schema; }
    public boolean isDiscoverPlugins() { return discoverPlugins; }
    public void setDiscoverPlugins(boolean v) { this.discoverPlugins = v; }
    public String getApproverRule() { return approverRule; }
    public void setApproverRule(String v) { this.approverRule = v; }
    public boolean isRequireDistinctApprover() { return requireDistinctApprover; }
    public void setRequireDistinctApprover(boolean v) { this.requireDistinctApprover = v; }
    public Duration getProposalTtl() { return proposalTtl; }
    public void setProposalTtl(Duration v) { this.proposalTtl = v; }
    public Duration getUnattendedProposalTtl() { return unattendedProposalTtl; }
    public void setUnattendedProposalTtl(Duration v) { this.unattendedProposalTtl = v; }
    public int getMaxPendingPerSession() { return maxPendingPerSession; }
    public void setMaxPendingPerSession(int v) { this.maxPendingPerSession = v; }
    public Duration getExecutionTimeout() { return executionTimeout; }
    public void setExecutionTimeout(Duration v) { this.executionTimeout = v; }
    public DataSize getResultLimit() { return resultLimit; }
    public void setResultLimit(DataSize v) { this.resultLimit = v; }
    public DataSize getMaxArgumentSize() { return maxArgumentSize; }
    public void setMaxArgumentSize(DataSize v) { this.maxArgumentSize = v; }
    public Duration getSweepInterval() { return sweepInterval; }
    public void setSweepInterval(Duration v) { this.sweepInterval = v; }
    public Budget getBudget() { return budget; }
    public Retention getRetention() { return retention; }
    public Security getSecurity() { return security; }
    public SpringAi getSpringAi() { return springAi; }
    public Console getConsole() { return console; }
    public Mcp getMcp() { return mcp; }
}
