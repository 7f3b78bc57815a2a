package dev.toolgate.gate;

import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import dev.toolgate.access.Resolver;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ForbiddenException;
import java.util.Objects;
import java.util.Set;

/** Who may act as an operator: whoever the resolver allows the approver rule. */
final class Approvers implements Guarded {

    private final Resolver resolver;
    private final Set<String> rules;

    Approvers(Resolver resolver, String approverRule) {
        this.resolver = resolver;
        this.rules = Set.of(approverRule);
    }

    @Override
    public String name() {
        return "the approval inbox";
    }

    @Override
    public Set<String> requiredAccessRules() {
        return rules;
    }

    boolean isApprover(Principal principal) {
        return resolver.isAllowed(principal, this);
    }

    /** Throws {@link ForbiddenException} naming the approver rule unless the principal holds it. */
    void require(CallContext context) {
        Objects.requireNonNull(context, "context");
        AccessDecision decision = resolver.decide(context.principal(), this);
        if (!decision.allowed()) {
            throw new ForbiddenException(decision.describe(name()), null, decision.missingRules());
        }
    }
}
