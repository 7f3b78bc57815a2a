package dev.toolgate.gate;

import dev.toolgate.call.CallContext;
import dev.toolgate.call.DuplicateCallException;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.GateSettings;
import dev.toolgate.call.UnknownToolException;
import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Principal;
import dev.toolgate.access.Resolver;
import dev.toolgate.json.CanonicalJson;
import dev.toolgate.policy.ModeCascade;
import dev.toolgate.policy.ModeResolution;
import dev.toolgate.policy.PolicyView;
import dev.toolgate.policy.ToolReview;
import dev.toolgate.spi.PolicyStore;
import dev.toolgate.tool.RegisteredTool;
import dev.toolgate.tool.ToolRegistry;
import dev.toolgate.tool.ToolValidationException;
import dev.toolgate.tool.ValidationIssue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The checks a call passes before anything is recorded, which change nothing: the tool exists and the
 * principal may use it, the arguments fit the size limit and the schema, the policy mode (with a dynamic
 * tool's first-seen baseline and its drift), and the turn's duplicates.
 */
final class Preparation {

    private static final Logger LOG = LoggerFactory.getLogger(StandardEngine.class);
    private final ToolRegistry registry;
    private final Resolver resolver;
    private final PolicyStore policies;
    private final GateSettings settings;
    /** The drifts this engine has logged at INFO: each once, then at DEBUG (a line per call floods a log). */
    private final FirstSeen loggedDrifts = new FirstSeen(10_000);

    Preparation(ToolRegistry registry, Resolver resolver, PolicyStore policies, GateSettings settings) {
        this.registry = registry;
        this.resolver = resolver;
        this.policies = policies;
        this.settings = settings;
    }

    /** A call that passed every check that changes nothing. */
    record Prepared(RegisteredTool tool, JsonNode arguments, String argumentsHash, ModeResolution mode) {
    }

    /** The registered tool named {@code name}. */
    RegisteredTool tool(String name) {
        return registry.find(name).orElseThrow(() -> new UnknownToolException(name));
    }

    /** Throws {@link ForbiddenException} naming the missing rules unless {@code principal} may use {@code tool}. */
    void authorize(Principal principal, RegisteredTool tool) {
        AccessDecision decision = resolver.decide(principal, tool);
        if (!decision.allowed()) {
            throw new ForbiddenException(decision.describe(tool.name()), tool.name(), decision.missingRules());
        }
    }

    /**
     * The checks that change nothing: tool, access, arguments (size, schema), the mode, and the turn's
     * duplicates; with a turn in the context, a call that passes is admitted into it and its caller
     * must {@linkplain Admissions#end end} it.
     */
    Prepared prepare(CallContext context, String toolName, JsonNode arguments) {
        Objects.requireNonNull(context, "context");
        RegisteredTool tool = tool(toolName);
        authorize(context.principal(), tool);
        JsonNode args = arguments == null || arguments.isMissingNode() ? JsonNodeFactory.instance.objectNode() : arguments;
        // no arguments ({}), the most common call of a read: canonical form and hash known in advance
        boolean none = args.isObject() && args.isEmpty();
        byte[] bytes = none ? null : canonicalBytes(tool, args);
        List<ValidationIssue> issues = tool.validate(args);
        if (!issues.isEmpty()) {
            throw new ToolValidationException(tool.name(), issues);
        }
        String hash = none ? NO_ARGUMENTS_HASH : CanonicalJson.sha256Hex(bytes);
        ModeResolution mode = resolveMode(tool, context.tenantId(), context.automationId());
        // the last check: a call admitted into the turn ends it (Calls.endInTurn), whatever happens next
        if (context.turn() != null && !Admissions.begin(context.turn(), tool.name(), hash)) {
            throw new DuplicateCallException(tool.name());
        }
        return new Prepared(tool, args, hash, mode);
    }

    /** The hash of no arguments: SHA-256 of their canonical form, {@code {}}. */
    static final String NO_ARGUMENTS_HASH = CanonicalJson.sha256Hex(CanonicalJson.canonicalize(JsonNodeFactory.instance.objectNode())
            .getBytes(StandardCharsets.UTF_8));

    /** The canonical UTF-8 form of {@code args}, within the size limit. */
    private byte[] canonicalBytes(RegisteredTool tool, JsonNode args) {
        String canonical;
        try {
            canonical = CanonicalJson.canonicalize(args);
        } catch (IllegalArgumentException e) {
            throw new ToolValidationException(tool.name(), List.of(ValidationIssue.at("", e.getMessage())));
        }
        byte[] bytes = canonical.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > settings.maxArgumentBytes()) {
            throw new ToolValidationException(tool.name(), List.of(ValidationIssue.at("", "the arguments are "
                    + bytes.length + " bytes; the limit is " + settings.maxArgumentBytes())));
        }
        return bytes;
    }

    private ModeResolution resolveMode(RegisteredTool tool, String tenantId, String automationId) {
        PolicyView view = policies.view(tool.name(), tenantId, automationId);
        if (tool.tool().dynamic() && view.review().isEmpty()) {
            ToolReview baseline = policies.reviewIfAbsent(
                    new ToolReview(Steps.tenantKey(tenantId), tool.name(), tool.schemaFingerprint(), Steps.SYSTEM, null));
            view = new PolicyView(view.automationOverride(), view.tenantOverride(), Optional.of(baseline));
        }
        ModeResolution mode = ModeCascade.resolve(tool.effect(), view, tool.schemaFingerprint());
        if (mode.drifted()) {
            logDrift(tool, Steps.tenantKey(tenantId), mode);
        }
        return mode;
    }

    private void logDrift(RegisteredTool tool, String tenant, ModeResolution mode) {
        if (loggedDrifts.first(tenant, tool.name(), tool.schemaFingerprint())) {
            LOG.info("Tool {} drifted from the schema reviewed for tenant '{}'; mode {} until an operator re-confirms"
                    + " (logged once per tenant and schema)", tool.name(), tenant, mode.mode().wireName());
        } else if (LOG.isDebugEnabled()) {
            LOG.debug("Tool {} still drifted for tenant '{}'; mode {}", tool.name(), tenant, mode.mode().wireName());
        }
    }
}
