package dev.toolgate.access;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ResolverTest {

    record Thing(String name, Set<String> requiredAccessRules) implements Guarded {
    }

    private final Resolver resolver = Resolver.standard();
    private final Thing manage = new Thing("incident.create", Set.of("incident.incident.manage"));
    private final Thing both = new Thing("incident.link", Set.of("incident.incident.manage", "catalog.system.read"));
    private final Thing open = new Thing("misc.ping", Set.of());

    @Test
    void aToolIsAllowedIffEveryRequiredRuleIsHeld() {
        Principal carol = Principal.user("carol", "incident.incident.manage");
        assertThat(resolver.isAllowed(carol, manage)).isTrue();
        assertThat(resolver.decide(carol, both)).satisfies(d -> {
            assertThat(d.allowed()).isFalse();
            assertThat(d.missingRules()).containsExactly("catalog.system.read");
            assertThat(d.describe("incident.link")).isEqualTo("Forbidden: incident.link (missing permission: catalog.system.read)");
        });
        assertThat(resolver.isAllowed(Principal.user("nobody"), open)).isTrue();
        assertThat(resolver.decide(Principal.user("nobody"), both).missingRules())
                .containsExactly("catalog.system.read", "incident.incident.manage");
    }

    @Test
    void starIsTheAdminEscape() {
        Principal alice = Principal.user("alice", Principal.ALL);
        assertThat(resolver.isAllowed(alice, both)).isTrue();
        assertThat(resolver.isAllowed(Principal.application("ci", Principal.ALL), manage)).isTrue();
    }

    @Test
    void aServicePrincipalIsNeverOfferedOrAllowedAnything() {
        Principal service = Principal.service("backend", Principal.ALL, "incident.incident.manage");
        assertThat(resolver.decide(service, open).reason()).isEqualTo(AccessDecision.Reason.SERVICE_PRINCIPAL);
        assertThat(resolver.resolveTools(service, List.of(manage, both, open))).isEmpty();
    }

    @Test
    void resolveToolsUsesTheSamePredicateAndKeepsOrder() {
        Principal carol = Principal.user("carol", "incident.incident.manage");
        assertThat(resolver.resolveTools(carol, List.of(open, both, manage))).containsExactly(open, manage);
    }

    @Test
    void invalidRulesAreRejected() {
        assertThatThrownBy(() -> Principal.user("x", "has space")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Principal.user(" ")).isInstanceOf(IllegalArgumentException.class);
    }

    /** Narrowing a principal to any subset of scopes can only ever shrink what it sees. Property test. */
    @Test
    void aNarrowedPrincipalNeverSeesMoreTools() {
        Random random = new Random(20261122L);
        List<String> vocabulary = List.of("a.read", "a.manage", "b.read", "b.manage", "c.read", "c.manage", Principal.ALL);
        for (int round = 0; round < 5_000; round++) {
            List<Thing> tools = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                tools.add(new Thing("t" + t, pick(random, vocabulary.subList(0, 6), 3)));
            }
            Principal principal = new Principal(PrincipalKind.USER, "p", pick(random, vocabulary, 4), java.util.Map.of());
            Set<String> scopes = pick(random, vocabulary, 4);
            Principal narrowed = principal.narrowedTo(scopes);

            List<Thing> before = resolver.resolveTools(principal, tools);
            List<Thing> after = resolver.resolveTools(narrowed, tools);
            assertThat(before).as("round %d: %s narrowed by %s to %s", round, principal.accessRules(), scopes,
                    narrowed.accessRules()).containsAll(after);
            assertThat(principal.accessRules().contains(Principal.ALL) || principal.accessRules().containsAll(narrowed.accessRules()))
                    .isTrue();
            for (String rule : narrowed.accessRules()) {
                assertThat(scopes.contains(rule) || scopes.contains(Principal.ALL)).as(rule).isTrue();
            }
        }
    }

    @Test
    void narrowingKeepsGrantedRulesAndNarrowsTheAdminEscape() {
        Principal alice = Principal.user("alice", Principal.ALL);
        assertThat(alice.narrowedTo(Set.of("a.read")).accessRules()).containsExactly("a.read");
        Principal carol = Principal.user("carol", "a.read", "a.manage");
        assertThat(carol.narrowedTo(Set.of("a.read", "b.read")).accessRules()).containsExactly("a.read");
        assertThat(carol.narrowedTo(Set.of(Principal.ALL)).accessRules()).containsExactly("a.manage", "a.read");
    }

    private static Set<String> pick(Random random, List<String> from, int max) {
        Set<String> out = new HashSet<>();
        int n = random.nextInt(max + 1);
        for (int i = 0; i < n; i++) {
            out.add(from.get(random.nextInt(from.size())));
        }
        return out;
    }
}
