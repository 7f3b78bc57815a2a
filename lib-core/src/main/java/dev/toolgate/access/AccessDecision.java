package dev.toolgate.access;

import java.util.Collections;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The outcome of the access predicate for one principal and one guarded thing.
 *
 * @param allowed      true if the principal may see and call it
 * @param missingRules the required rules the principal lacks (sorted, empty when allowed)
 * @param reason       why
 */
public record AccessDecision(boolean allowed, Set<String> missingRules, Reason reason) {

    /** Why a decision came out as it did. */
    public enum Reason {
        /** Every required rule is held. */
        ALLOWED,
        /** At least one required rule is missing; see {@link #missingRules()}. */
        MISSING_RULES,
        /** The principal is a {@link PrincipalKind#SERVICE}: services never drive tools. */
        SERVICE_PRINCIPAL
    }

    private static final AccessDecision ALLOW = new AccessDecision(true, Set.of(), Reason.ALLOWED);

    /** Checks the components; see the class description for what each must hold. */
    public AccessDecision {
        Objects.requireNonNull(reason, "reason");
        missingRules = Collections.unmodifiableSortedSet(new TreeSet<>(missingRules));
        if (allowed != (reason == Reason.ALLOWED)) {
            throw new IllegalArgumentException("allowed must match reason " + reason);
        }
    }

    /** The decision for a principal that holds every required rule. */
    public static AccessDecision allow() {
        return ALLOW;
    }

    /** A refusal naming the rules that are missing. */
    public static AccessDecision missing(Set<String> missingRules) {
        if (missingRules.isEmpty()) {
            throw new IllegalArgumentException("a refusal for missing rules must name at least one");
        }
        return new AccessDecision(false, missingRules, Reason.MISSING_RULES);
    }

    /** The refusal every service principal gets. */
    public static AccessDecision servicePrincipal() {
        return new AccessDecision(false, Set.of(), Reason.SERVICE_PRINCIPAL);
    }

    /**
     * The refusal in the wording the model and the operator see, for example
     * {@code Forbidden: incident.create (missing permission: incident.incident.manage)}.
     */
    public String describe(String name) {
        return switch (reason) {
            case ALLOWED -> "Allowed: " + name;
            case MISSING_RULES -> "Forbidden: " + name + " (missing permission: " + String.join(", ", missingRules) + ")";
            case SERVICE_PRINCIPAL -> "Forbidden: " + name + " (service principals cannot drive tools)";
        };
    }
}
