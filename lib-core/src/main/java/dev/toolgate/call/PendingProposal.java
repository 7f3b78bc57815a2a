package dev.toolgate.call;

import dev.toolgate.access.PrincipalRef;
import dev.toolgate.json.FieldChange;
import dev.toolgate.policy.Mode;
import dev.toolgate.policy.ModeSource;
import dev.toolgate.policy.OverrideScope;
import dev.toolgate.tool.Effect;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A proposal waiting in the inbox, with what an operator needs to decide. It carries no token:
 * operators approve by {@link #callId()}.
 *
 * @param callId     the proposal id
 * @param toolName   the tool
 * @param effect     the tool's effect
 * @param proposer   who proposed it
 * @param tenantId   tenant, or null
 * @param sessionId  session, or null
 * @param automationId the automation it was proposed in, or null
 * @param summary    the dry-run's summary
 * @param payload    what approval will execute
 * @param diff       before/after changes
 * @param createdAt  when it was proposed
 * @param expiresAt  when it expires
 * @param mode       the policy mode recorded at propose time
 * @param modeSource where the mode came from
 * @param supersedes the proposal it replaced after an edit, or null
 * @param executionId the durable execution this proposal is a step of, or null
 * @param stepSeq    its step in that execution, or null
 * @param blockedReason why the principal viewing it may not decide on it (for example separation of
 *                   duties: they proposed it themselves), or null if they may
 */
public record PendingProposal(String callId, String toolName, Effect effect, PrincipalRef proposer, String tenantId,
                              String sessionId, String automationId, String summary, JsonNode payload, List<FieldChange> diff,
                              Instant createdAt, Instant expiresAt, Mode mode, ModeSource modeSource,
                              String supersedes, String executionId, Integer stepSeq, String blockedReason) {

    /** Checks the components; see the class description for what each must hold. */
    public PendingProposal {
        Objects.requireNonNull(callId, "callId");
        diff = List.copyOf(diff);
    }

    /** True if the principal viewing it may approve or edit it (see {@link #blockedReason()}). */
    public boolean decidable() {
        return blockedReason == null;
    }

    /**
     * The scopes an "approve always" of this proposal may store its ALLOW at: {@code TENANT} if it has a
     * tenant, {@code AUTOMATION} if it has an automation; none for a DESTRUCTIVE tool, which always asks.
     */
    public Set<OverrideScope> alwaysScopes() {
        EnumSet<OverrideScope> scopes = EnumSet.noneOf(OverrideScope.class);
        if (effect == Effect.DESTRUCTIVE) {
            return scopes;
        }
        if (automationId != null) {
            scopes.add(OverrideScope.AUTOMATION);
        }
        if (tenantId != null) {
            scopes.add(OverrideScope.TENANT);
        }
        return scopes;
    }
}
