package dev.toolgate.conversation;

import java.time.Instant;
import java.util.Objects;

/**
 * A model's call that repeats a proposal it already made in the same conversation (the same tool with
 * the same arguments, by their canonical hash) and that still answers it: the earlier proposal is
 * pending, or an operator declined it and its time to live has not run out. An adapter answers such a
 * call from the earlier proposal instead of proposing again. See {@link Conversations#repeatOf}.
 */
public sealed interface Repeat {

    /** The earlier proposal's call id. */
    String proposalId();

    /**
     * The earlier proposal still waits for a decision.
     *
     * @param proposalId the earlier proposal
     * @param summary    its summary
     * @param expiresAt  when it expires
     */
    record Pending(String proposalId, String summary, Instant expiresAt) implements Repeat {
        /** Checks the components. */
        public Pending {
            Objects.requireNonNull(proposalId, "proposalId");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }
    }

    /**
     * An operator declined the earlier proposal, and its time to live has not run out.
     *
     * @param decision the decline, with the operator's reason
     */
    record Declined(Decision decision) implements Repeat {
        /** Checks the components. */
        public Declined {
            Objects.requireNonNull(decision, "decision");
        }

        @Override
        public String proposalId() {
            return decision.proposalId();
        }
    }
}
