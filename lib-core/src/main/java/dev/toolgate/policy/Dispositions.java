package dev.toolgate.policy;

import dev.toolgate.tool.Effect;
import java.util.Objects;

/**
 * The one decision table from effect, resolved mode and permission mode to a {@link Disposition}.
 * Pure and total.
 *
 * <table>
 *   <caption>Disposition by effect and mode</caption>
 *   <tr><th>effect</th><th>mode</th><th>APPROVE</th><th>AUTO</th></tr>
 *   <tr><td>any</td><td>DENY</td><td>DENY</td><td>DENY</td></tr>
 *   <tr><td>READ</td><td>ALLOW</td><td>RUN</td><td>RUN</td></tr>
 *   <tr><td>READ</td><td>REQUIRE_APPROVAL</td><td>PROPOSE_AND_WAIT</td><td>PROPOSE_AND_WAIT</td></tr>
 *   <tr><td>MUTATE</td><td>ALLOW (explicit override)</td><td>PROPOSE_AND_APPLY</td><td>PROPOSE_AND_APPLY</td></tr>
 *   <tr><td>MUTATE</td><td>REQUIRE_APPROVAL, inferred</td><td>PROPOSE_AND_WAIT</td><td>PROPOSE_AND_APPLY</td></tr>
 *   <tr><td>MUTATE</td><td>REQUIRE_APPROVAL, explicit or drifted</td><td>PROPOSE_AND_WAIT</td><td>PROPOSE_AND_WAIT</td></tr>
 *   <tr><td>DESTRUCTIVE</td><td>ALLOW or REQUIRE_APPROVAL</td><td>PROPOSE_AND_WAIT</td><td>PROPOSE_AND_WAIT</td></tr>
 * </table>
 *
 * <p>The invariants: a mutating tool never runs without a proposal; DESTRUCTIVE never auto-applies,
 * in any mode, even under an ALLOW override; a REQUIRE_APPROVAL that an operator set or that drift
 * imposed is never waived by the conversation's AUTO mode. An explicit ALLOW is a standing approval
 * (what "approve always" writes): the change is still proposed and dry-run, and shown as an applied
 * card.
 */
public final class Dispositions {

    private Dispositions() {
    }

    /** The disposition of one call. */
    public static Disposition decide(Effect effect, ModeResolution mode, PermissionMode permission) {
        Objects.requireNonNull(effect, "effect");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(permission, "permission");
        if (mode.mode() == Mode.DENY) {
            return Disposition.DENY;
        }
        return switch (effect) {
            case READ -> mode.mode() == Mode.ALLOW ? Disposition.RUN : Disposition.PROPOSE_AND_WAIT;
            case DESTRUCTIVE -> Disposition.PROPOSE_AND_WAIT;
            case MUTATE -> {
                if (mode.mode() == Mode.ALLOW) {
                    yield Disposition.PROPOSE_AND_APPLY;
                }
                boolean autoConsents = permission == PermissionMode.AUTO && !mode.explicit();
                yield autoConsents ? Disposition.PROPOSE_AND_APPLY : Disposition.PROPOSE_AND_WAIT;
            }
        };
    }

    /** The mode inferred from an effect when no override exists: READ allows, mutations require approval. */
    public static Mode inferred(Effect effect) {
        return effect == Effect.READ ? Mode.ALLOW : Mode.REQUIRE_APPROVAL;
    }
}
