package dev.toolgate.spi;

import dev.toolgate.audit.CallRecord;
import dev.toolgate.audit.CallStatus;
import java.time.Instant;
import java.util.List;
import java.util.Set;

/**
 * What a conversation has been told of the decisions on its proposals. A proposal made in a session
 * (a conversation) is decided later, often elsewhere: an operator approves or declines it in the inbox
 * or the console, on this instance or another, or it expires. The model that proposed it learns the
 * decision on its next turn in that conversation, and exactly once: this store marks each decided
 * proposal as told by one delivery, atomically, across every instance sharing the store.
 *
 * <p>A proposal is <em>decided</em> when it was a proposal (it has a token digest), no step of a run
 * is rolling it back ({@code reverts} is null), and it is
 * <ul>
 *   <li>{@code applied}, {@code reverted} (applied, then undone by a rollback before the conversation was
 *       told) or {@code failed} after a claim ({@code appliedAt} set), unless policy applied it
 *       in the very step that proposed it (its {@code decisionReason} is one of {@link #APPLIED_IN_STEP}
 *       and nobody decided it): the model already got that outcome as its call's answer;</li>
 *   <li>{@code rejected} (declined, with the operator's reason), {@code superseded} (an operator's edit
 *       replaced it), {@code expired}, or {@code stale} (the state its preview was made from had changed
 *       when it was about to run: nothing ran);</li>
 *   <li>still {@code proposed} but past its expiry by the store's clock (the sweeper has not marked it
 *       yet; no apply can claim it any more).</li>
 * </ul>
 * Applying and interrupted proposals are not decided yet: their outcome is still to come (an
 * operator resolves an interrupted one as applied or failed). Every method is one atomic step.
 */
public interface ConversationStore {

    /** The decision reasons of proposals that policy applied in the step that made them. */
    Set<String> APPLIED_IN_STEP = Set.of("auto_mode", "allow_policy", "standing_approval");

    /**
     * Whether {@code record} is a decided proposal at {@code now} (see the class description): the
     * predicate every store implements, in its own query language.
     */
    static boolean isDecided(CallRecord record, Instant now) {
        if (record.tokenDigest() == null || record.reverts() != null) {
            return false;
        }
        return switch (record.status()) {
            case APPLIED, REVERTED, FAILED -> record.appliedAt() != null
                    && (record.decidedBy() != null || record.decisionReason() == null
                    || !APPLIED_IN_STEP.contains(record.decisionReason()));
            case REJECTED, SUPERSEDED, EXPIRED, STALE -> true;
            case PROPOSED -> record.expiresAt() != null && !record.expiresAt().isAfter(now);
            default -> false;
        };
    }

    /** When {@code record}, a decided proposal, was decided: its completion, or its expiry if not yet marked. */
    static Instant decidedAt(CallRecord record) {
        return record.status() == CallStatus.PROPOSED || record.completedAt() == null ? record.expiresAt() : record.completedAt();
    }

    /**
     * Decided proposals of {@code sessionId} not told yet that {@code principalKey} ({@code <kind>:<id>})
     * made, or that replaced a proposal through an operator's edit ({@code supersedes} set, whoever made
     * them: the caller checks whose proposal they replaced), oldest decision first (by completion time, an
     * unmarked expiry by its expiry, then id), at most {@code limit}.
     */
    List<CallRecord> untold(String sessionId, String principalKey, int limit);

    /**
     * Marks the decided proposal {@code callId} as told by {@code deliveryId}. Of any number of
     * concurrent calls for one proposal, across every instance sharing the store, exactly one returns
     * true; a proposal that is not decided (or no longer exists) is never marked.
     *
     * @param deliveryId 1-64 characters naming the delivery (a model turn), for {@link #untell}
     */
    boolean tell(String callId, String deliveryId);

    /**
     * Undoes {@link #tell} for a delivery that never reached the model (its model call failed), so
     * the next turn tells it again.
     *
     * @return false if {@code callId} was not marked by {@code deliveryId}; nothing changes then
     */
    boolean untell(String callId, String deliveryId);
}
