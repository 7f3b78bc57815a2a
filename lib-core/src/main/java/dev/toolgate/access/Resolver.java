package dev.toolgate.access;

import java.util.Collection;
import java.util.List;

/**
 * Decides which tools a principal may see and call. One predicate serves both: a tool is offered
 * only to a principal it would also allow, and the gate re-checks the same predicate when a call
 * executes, proposes and applies.
 *
 * <p>The {@linkplain #standard() standard resolver} allows a tool if and only if the principal is
 * not a {@link PrincipalKind#SERVICE} and holds every required rule (with {@value Principal#ALL} as
 * the admin escape). A host may supply its own resolver (explicitly to the builder, or through
 * {@code META-INF/services/dev.toolgate.access.Resolver}); it must never allow what the standard
 * predicate forbids if the host relies on tools' declared rules.
 */
public interface Resolver {

    /** The predicate, with the missing rules named when it refuses. */
    AccessDecision decide(Principal principal, Guarded tool);

    /** True if {@link #decide} allows. */
    default boolean isAllowed(Principal principal, Guarded tool) {
        return decide(principal, tool).allowed();
    }

    /** The subset of {@code tools} the principal may see, in their given order. */
    default <T extends Guarded> List<T> resolveTools(Principal principal, Collection<T> tools) {
        return tools.stream().filter(tool -> isAllowed(principal, tool)).toList();
    }

    /** The all-of-rules resolver described above. */
    static Resolver standard() {
        return StandardResolver.INSTANCE;
    }
}
