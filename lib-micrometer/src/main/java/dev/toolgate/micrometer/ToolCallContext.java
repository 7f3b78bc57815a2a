package dev.toolgate.micrometer;

import dev.toolgate.audit.BudgetRefusal;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.tool.Effect;
import io.micrometer.observation.Observation;
import java.time.Duration;
import java.time.Instant;

/**
 * The observation context of one governed call outcome (name {@value ToolgateObservability#OBSERVATION}).
 * Toolgate reports an outcome after it happened, so the observation is started and stopped at once and
 * carries the measured {@link #duration()}: Toolgate's own handlers (installed by
 * {@link ToolgateObservability}) use it for timers and back-date spans with it.
 *
 * <p>It holds metadata only (never arguments, payloads, results or the principal); the tenant and
 * session are here for the structured log and are never turned into tags or span attributes.
 */
public final class ToolCallContext extends Observation.Context {

    /** The status of a call the budget refused (not an audit status: nothing was recorded). */
    public static final String OVER_BUDGET = "over_budget";

    private final String callId;
    private final String toolName;
    private final Effect effect;
    private final String status;
    private final Mode mode;
    private final ModeSource modeSource;
    private final String transport;
    private final Duration duration;
    private final Instant proposedAt;
    private final String tenantId;
    private final String sessionId;

    /**
     * The low-cardinality facts of an outcome, as tag values: the key of its meters, key values and name,
     * each built once per distinct key.
     */
    record Facts(String tool, String effect, String mode, String modeSource, String status, String transport) {

        static Facts of(String tool, Effect effect, Mode mode, ModeSource modeSource, String status, String transport) {
            return new Facts(tool, effect.wireName(), modeTag(mode), sourceTag(modeSource), status, transport);
        }
    }

    private final Facts facts;

    ToolCallContext(String callId, Effect effect, Mode mode, ModeSource modeSource, Duration duration, Instant proposedAt,
                    String tenantId, String sessionId, Facts facts) {
        this.callId = callId;
        this.toolName = facts.tool();
        this.effect = effect;
        this.status = facts.status();
        this.mode = mode;
        this.modeSource = modeSource;
        this.transport = facts.transport();
        this.duration = duration;
        this.proposedAt = proposedAt;
        this.tenantId = tenantId;
        this.sessionId = sessionId;
        this.facts = facts;
    }

    static ToolCallContext of(BudgetRefusal r) {
        return new ToolCallContext(null, r.effect(), r.mode(), r.modeSource(), r.duration(), null, r.tenantId(),
                r.sessionId(), Facts.of(r.toolName(), r.effect(), r.mode(), r.modeSource(), OVER_BUDGET, r.transport()));
    }

    /** The outcome's tag values. */
    Facts facts() {
        return facts;
    }

    /** The call id (the audit record's), or null for a budget refusal (nothing was recorded). */
    public String callId() {
        return callId;
    }

    /** The qualified tool name. */
    public String toolName() {
        return toolName;
    }

    /** The tool's effect. */
    public Effect effect() {
        return effect;
    }

    /** The outcome: a call status's wire name ({@code executed}, {@code proposed} ...) or {@value #OVER_BUDGET}. */
    public String status() {
        return status;
    }

    /** The resolved mode, or null if the outcome does not say. */
    public Mode mode() {
        return mode;
    }

    /** Where the mode came from, or null if the outcome does not say. */
    public ModeSource modeSource() {
        return modeSource;
    }

    /** How the call arrived ({@code mcp}, {@code chat}, {@code java} ...). */
    public String transport() {
        return transport;
    }

    /** How long the gate spent on this step. */
    public Duration duration() {
        return duration;
    }

    /** For the decision on a proposal that waited: when it was proposed; otherwise null. */
    public Instant proposedAt() {
        return proposedAt;
    }

    String tenantId() {
        return tenantId;
    }

    String sessionId() {
        return sessionId;
    }

    static String modeTag(Mode mode) {
        return mode == null ? "unknown" : mode.wireName();
    }

    static String sourceTag(ModeSource source) {
        return source == null ? "unknown" : source.wireName();
    }
}
