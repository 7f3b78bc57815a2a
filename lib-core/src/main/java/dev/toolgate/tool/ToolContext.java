package dev.toolgate.tool;

import dev.toolgate.access.Principal;
import java.util.Objects;
import java.util.Optional;

/**
 * What a tool learns about the call it serves. A tool must act as {@link #principal()}: call the
 * host's services with that principal's rights, never with a trusted service identity, so a model
 * can never reach more than the human behind it could.
 *
 * @param callId       the audit record id of this call
 * @param principal    for {@link Phase#DRY_RUN} the proposer; for {@link Phase#EXECUTE} of a mutating
 *                     tool the principal that applied or approved it
 * @param tenantId     the tenant (organization) the call belongs to, or null
 * @param sessionId    the conversation or session, or null
 * @param automationId the automation running the call, or null
 * @param transport    how the call arrived, for example {@code mcp} or {@code chat}
 * @param phase        whether this is a dry-run or the real execution
 * @param channel      the way back to the calling client (progress, log messages, sampling, elicitation);
 *                     {@link ClientChannel#none()} when there is none, and always in a {@link Phase#DRY_RUN}
 */
public record ToolContext(String callId, Principal principal, String tenantId, String sessionId,
                          String automationId, String transport, Phase phase, ClientChannel channel) {

    /** Which step of a call a tool function runs in. */
    public enum Phase {
        /** The dry-run of a proposal: validate and preview, change nothing. */
        DRY_RUN,
        /** The real execution: a read call, or an applied proposal. */
        EXECUTE
    }

    /**
     * Checks the components; see the class description for what each must hold. A null channel is
     * {@link ClientChannel#none()}; in a dry-run the channel is always one that refuses.
     */
    public ToolContext {
        Objects.requireNonNull(callId, "callId");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(transport, "transport");
        Objects.requireNonNull(phase, "phase");
        // a proposal must not talk to the user before consent: a dry-run never gets the client's channel
        channel = phase == Phase.DRY_RUN ? NoClientChannel.DRY_RUN : channel == null ? ClientChannel.none() : channel;
    }

    /** A context without a way back to the client ({@link ClientChannel#none()}). */
    public ToolContext(String callId, Principal principal, String tenantId, String sessionId,
                       String automationId, String transport, Phase phase) {
        this(callId, principal, tenantId, sessionId, automationId, transport, phase, null);
    }

    /** The tenant, if the call has one. */
    public Optional<String> tenant() {
        return Optional.ofNullable(tenantId);
    }
}
