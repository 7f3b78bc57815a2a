package dev.toolgate.access;

import java.util.Set;
import java.util.TreeSet;

/** All-of rules, {@code *} as the admin escape, services never allowed. */
final class StandardResolver implements Resolver {

    static final StandardResolver INSTANCE = new StandardResolver();

    private StandardResolver() {
    }

    @Override
    public AccessDecision decide(Principal principal, Guarded tool) {
        if (principal.kind() == PrincipalKind.SERVICE) {
            return AccessDecision.servicePrincipal();
        }
        if (principal.accessRules().contains(Principal.ALL)) {
            return AccessDecision.allow();
        }
        Set<String> missing = new TreeSet<>();
        for (String rule : tool.requiredAccessRules()) {
            if (!principal.accessRules().contains(rule)) {
                missing.add(rule);
            }
        }
        return missing.isEmpty() ? AccessDecision.allow() : AccessDecision.missing(missing);
    }

    @Override
    public String toString() {
        return "Resolver.standard()";
    }
}
