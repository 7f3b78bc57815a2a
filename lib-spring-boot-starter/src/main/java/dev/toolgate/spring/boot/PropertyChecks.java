package dev.toolgate.spring.boot;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/** The checks behind {@link ToolgateProperties#validate()}: each names the property it refuses. */
final class PropertyChecks {

    /** A mount path: starts with '/', plain path segments, no trailing '/', not the root. */
    private static final Pattern PATH = Pattern.compile("(/(?!\\.{1,2}(/|$))[A-Za-z0-9._~-]+)+");
    /** A Spring Security role name without ROLE_. */
    private static final Pattern ROLE = Pattern.compile("[A-Za-z0-9_.-]+");
    /** An access rule, as a principal holds it (no wildcard: only the application's own code grants '*'). */
    static final Pattern RULE = Pattern.compile("[A-Za-z0-9_.:-]{1,200}");
    /** A plugin id: the first part of a qualified tool name. */
    private static final Pattern PLUGIN_ID = Pattern.compile("[a-z][a-z0-9_-]{0,39}");

    private PropertyChecks() {
    }

    static void check(ToolgateProperties p) {
        require(p.getStore() != null, "toolgate.store", p.getStore(), "auto, jdbc or memory");
        require(p.getSchema() != null, "toolgate.schema", p.getSchema(), "apply, validate or none");
        rule("toolgate.approver-rule", p.getApproverRule());
        positive("toolgate.proposal-ttl", p.getProposalTtl());
        positive("toolgate.unattended-proposal-ttl", p.getUnattendedProposalTtl());
        positive("toolgate.execution-timeout", p.getExecutionTimeout());
        positive("toolgate.sweep-interval", p.getSweepInterval());
        require(p.getMaxPendingPerSession() >= 1, "toolgate.max-pending-per-session", p.getMaxPendingPerSession(), "at least 1");
        require(p.getResultLimit() != null && p.getResultLimit().toBytes() >= 1024 && p.getResultLimit().toBytes() <= Integer.MAX_VALUE,
                "toolgate.result-limit", p.getResultLimit(), "between 1KB and 2GB");
        require(p.getMaxArgumentSize() != null && p.getMaxArgumentSize().toBytes() >= 1024
                        && p.getMaxArgumentSize().toBytes() <= Integer.MAX_VALUE,
                "toolgate.max-argument-size", p.getMaxArgumentSize(), "between 1KB and 2GB");

        ToolgateProperties.Budget budget = p.getBudget();
        require(budget.getCalls() >= 1, "toolgate.budget.calls", budget.getCalls(), "at least 1 (turn the budget off with toolgate.budget.enabled=false)");
        positive("toolgate.budget.window", budget.getWindow());
        require(budget.getWindow() == null || budget.getWindow().toMillis() >= 1000, "toolgate.budget.window", budget.getWindow(), "at least 1s");

        ToolgateProperties.Retention retention = p.getRetention();
        positive("toolgate.retention.finished-calls", retention.getFinishedCalls());
        positive("toolgate.retention.closed-proposals", retention.getClosedProposals());
        positive("toolgate.retention.idle-sessions", retention.getIdleSessions());
        positive("toolgate.retention.idle-budgets", retention.getIdleBudgets());

        for (Map.Entry<String, List<String>> e : p.getSecurity().getAuthorityRules().entrySet()) {
            String property = "toolgate.security.authority-rules." + e.getKey();
            require(e.getValue() != null && !e.getValue().isEmpty(), property, e.getValue(), "a list of access rules");
            for (String rule : e.getValue()) {
                rule(property, rule);
            }
        }

        ToolgateProperties.SpringAi ai = p.getSpringAi();
        require(ai.getPluginId() != null && PLUGIN_ID.matcher(ai.getPluginId()).matches(), "toolgate.spring-ai.plugin-id",
                ai.getPluginId(), "a lower-case id of letters, digits, '_' or '-' (at most 40), starting with a letter");
        require(ai.getConsent() != null, "toolgate.spring-ai.consent", ai.getConsent(), "user or operator");
        require(ai.getMaxCallsPerTurn() >= 1, "toolgate.spring-ai.max-calls-per-turn", ai.getMaxCallsPerTurn(), "at least 1");

        ToolgateProperties.Console console = p.getConsole();
        path("toolgate.console.path", console.getPath());
        require(console.getOperatorRole() != null && ROLE.matcher(console.getOperatorRole()).matches()
                        && !console.getOperatorRole().startsWith("ROLE_"),
                "toolgate.console.operator-role", console.getOperatorRole(), "a role name without the ROLE_ prefix (letters, digits, '_', '.', '-')");
        positive("toolgate.console.session-timeout", console.getSessionTimeout());
        origins("toolgate.console.allowed-origins", console.getAllowedOrigins(), false);

        ToolgateProperties.Mcp mcp = p.getMcp();
        path("toolgate.mcp.path", mcp.getPath());
        require(mcp.getConsent() != null, "toolgate.mcp.consent", mcp.getConsent(), "user or operator");
        require(mcp.getPermissionMode() != null, "toolgate.mcp.permission-mode", mcp.getPermissionMode(), "approve or auto");
        require(!(mcp.getConsent() == dev.toolgate.call.Consent.OPERATOR
                        && mcp.getPermissionMode() == dev.toolgate.policy.PermissionMode.AUTO),
                "toolgate.mcp.permission-mode", mcp.getPermissionMode(), "approve when toolgate.mcp.consent is operator"
                        + " (auto would apply what no operator saw)");
        origins("toolgate.mcp.allowed-origins", mcp.getAllowedOrigins(), true);
        if (console.isEnabled() && mcp.isEnabled()) {
            String a = console.getPath() + "/";
            String b = mcp.getPath() + "/";
            require(!a.startsWith(b) && !b.startsWith(a), "toolgate.mcp.path", mcp.getPath(),
                    "a path apart from toolgate.console.path (" + console.getPath() + ")");
        }
    }

    private static void path(String property, String value) {
        require(value != null && PATH.matcher(value).matches(), property, value,
                "a path that starts with '/' and has no trailing '/', such as /toolgate");
    }

    private static void rule(String property, String value) {
        require(value != null && RULE.matcher(value).matches(), property, value, "an access rule of letters, digits, '_', '.', ':' or '-'");
    }

    private static void origins(String property, List<String> origins, boolean anyAllowed) {
        for (String origin : origins) {
            require(origin != null && ((anyAllowed && origin.equals("*")) || origin.matches("https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?")),
                    property, origin, "an origin such as https://ops.example.com (scheme, host and optional port)");
        }
    }

    private static void positive(String property, Duration value) {
        require(value != null && !value.isNegative() && !value.isZero(), property, value, "a positive duration, such as 10m");
    }

    private static void require(boolean ok, String property, Object value, String expected) {
        if (!ok) {
            throw new InvalidToolgatePropertyException(property, value, expected);
        }
    }
}
