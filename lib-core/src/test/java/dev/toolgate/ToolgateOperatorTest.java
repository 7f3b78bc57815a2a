package dev.toolgate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.AccessDecision;
import dev.toolgate.access.Guarded;
import dev.toolgate.access.Principal;
import dev.toolgate.access.Resolver;
import dev.toolgate.call.CallContext;
import dev.toolgate.call.ForbiddenException;
import dev.toolgate.call.GateSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link Toolgate#isOperator}: the same answer the operator actions give. */
class ToolgateOperatorTest {

    private static Toolgate gate(ToolgateBuilder builder) {
        return builder.discoverComponents(false).discoverTools(false).sweepInterval(Duration.ZERO).build();
    }

    @Test
    void theDefaultApproverRuleMakesAnOperator() {
        try (Toolgate gate = gate(Toolgate.builder())) {
            Principal operator = Principal.user("alice", GateSettings.DEFAULT_APPROVER_RULE);
            Principal user = Principal.user("carol", "notes.read");
            assertThat(gate.isOperator(operator)).isTrue();
            assertThat(gate.isOperator(user)).isFalse();
            // the inbox agrees: an operator lists calls in doubt, anyone else is refused naming the rule
            assertThat(gate.interrupted(CallContext.of(operator))).isEmpty();
            assertThatThrownBy(() -> gate.interrupted(CallContext.of(user))).isInstanceOf(ForbiddenException.class)
                    .hasMessageContaining(GateSettings.DEFAULT_APPROVER_RULE);
        }
    }

    @Test
    void aConfiguredApproverRuleReplacesTheDefault() {
        try (Toolgate gate = gate(Toolgate.builder().approverRule("ops.decide"))) {
            assertThat(gate.isOperator(Principal.user("alice", "ops.decide"))).isTrue();
            assertThat(gate.isOperator(Principal.user("bob", GateSettings.DEFAULT_APPROVER_RULE))).isFalse();
            assertThat(gate.isOperator(Principal.application("bot", "ops.decide"))).isTrue();
        }
    }

    @Test
    void theGatesResolverDecides() {
        Resolver denyAll = new Resolver() {
            @Override
            public AccessDecision decide(Principal principal, Guarded guarded) {
                return Resolver.standard().decide(Principal.user("nobody"), new Guarded() {
                    @Override
                    public String name() {
                        return guarded.name();
                    }

                    @Override
                    public java.util.Set<String> requiredAccessRules() {
                        return java.util.Set.of("never.granted");
                    }
                });
            }
        };
        try (Toolgate gate = gate(Toolgate.builder().resolver(denyAll))) {
            Principal holder = Principal.user("alice", GateSettings.DEFAULT_APPROVER_RULE);
            assertThat(gate.isOperator(holder)).as("holding the rule is not enough when the resolver says no").isFalse();
            assertThatThrownBy(() -> gate.interrupted(CallContext.of(holder))).isInstanceOf(ForbiddenException.class);
        }
    }

    @Test
    void aNullPrincipalIsRefused() {
        try (Toolgate gate = gate(Toolgate.builder())) {
            assertThatThrownBy(() -> gate.isOperator(null)).isInstanceOf(NullPointerException.class);
        }
    }
}
