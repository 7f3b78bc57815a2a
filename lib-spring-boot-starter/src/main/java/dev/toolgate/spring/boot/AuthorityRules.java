package dev.toolgate.spring.boot;

import dev.toolgate.access.Principal;
import dev.toolgate.access.PrincipalKind;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;

/** The starter's default {@link ToolgatePrincipalMapper}, configured by {@code toolgate.security.*}. */
final class AuthorityRules implements ToolgatePrincipalMapper {

    private final Map<String, List<String>> rulesByAuthority;
    private final boolean authoritiesAsRules;
    private final String operatorAuthority;
    private final String approverRule;

    AuthorityRules(ToolgateProperties properties) {
        this.rulesByAuthority = Map.copyOf(properties.getSecurity().getAuthorityRules());
        this.authoritiesAsRules = properties.getSecurity().isAuthoritiesAsRules();
        this.operatorAuthority = "ROLE_" + properties.getConsole().getOperatorRole();
        this.approverRule = properties.getApproverRule();
    }

    @Override
    public Optional<Principal> principalOf(Authentication authentication) {
        if (!isSignedIn(authentication)) {
            return Optional.empty();
        }
        Set<String> rules = new TreeSet<>();
        for (GrantedAuthority granted : authentication.getAuthorities()) {
            String authority = granted.getAuthority();
            if (authority == null || authority.isBlank()) {
                continue;
            }
            if (authoritiesAsRules) {
                rules.add(authority.startsWith("SCOPE_") ? authority.substring(6) : authority);
            }
            rules.addAll(rulesByAuthority.getOrDefault(authority, List.of()));
            if (authority.equals(operatorAuthority)) {
                rules.add(approverRule);
            }
        }
        // a wildcard is granted only by the application's own mapper; an authority that is not a valid rule
        // (a URL, spaces) is no rule at all
        rules.removeIf(rule -> rule.indexOf('*') >= 0 || !PropertyChecks.RULE.matcher(rule).matches());
        return Optional.of(new Principal(PrincipalKind.USER, authentication.getName(), rules, Map.of()));
    }

    static boolean isSignedIn(Authentication authentication) {
        return authentication != null && authentication.isAuthenticated()
                && !(authentication instanceof AnonymousAuthenticationToken)
                && authentication.getName() != null && !authentication.getName().isBlank();
    }
}
