package dev.toolgate.call;

import dev.toolgate.policy.OverrideScope;
import java.util.Objects;

/**
 * An operator's approval of a pending proposal: once (this proposal only), or always (this proposal,
 * and an ALLOW override for the tool at the chosen scope, so later calls need no approval; a
 * DESTRUCTIVE tool still always asks).
 *
 * @param always true to also store an ALLOW override
 * @param scope  where the override applies (automation or tenant); null for a one-time approval
 * @param reason why, for the audit trail; may be null
 */
public record Approval(boolean always, OverrideScope scope, String reason) {

    /** Checks the components; see the class description for what each must hold. */
    public Approval {
        if (always) {
            Objects.requireNonNull(scope, "an 'always' approval needs a scope");
        } else if (scope != null) {
            throw new IllegalArgumentException("a one-time approval takes no scope");
        }
    }

    /** Approve this proposal only. */
    public static Approval once() {
        return new Approval(false, null, null);
    }

    /** Approve this proposal only, with a reason. */
    public static Approval once(String reason) {
        return new Approval(false, null, reason);
    }

    /** Approve this proposal and allow the tool from now on at {@code scope}. */
    public static Approval always(OverrideScope scope) {
        return new Approval(true, scope, null);
    }

    /** As {@link #always(OverrideScope)}, with a reason. */
    public static Approval always(OverrideScope scope, String reason) {
        return new Approval(true, scope, reason);
    }
}
