package dev.toolgate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.access.Principal;
import dev.toolgate.call.GateSettings;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.SecurityContextHolder;

/** Spring Security's Authentication to a Toolgate principal: the documented mapping, and nobody when signed out. */
class PrincipalMappingTest {

    static {
        ClassesStartedFirst.now();
    }

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ToolgateSecurityAutoConfiguration.class, ToolgateAutoConfiguration.class))
            .withPropertyValues("toolgate.discover-plugins=false", "toolgate.store=memory",
                    "toolgate.security.authority-rules.ROLE_SUPPORT=incident.read,incident.create");

    @AfterEach
    void signOut() {
        SecurityContextHolder.clearContext();
    }

    @Test
    void authoritiesBecomeRulesAsDocumented() {
        runner.run(context -> {
            CurrentPrincipal current = context.getBean(CurrentPrincipal.class);
            signIn("ana", "ROLE_SUPPORT", "SCOPE_crm.read", "ROLE_TOOLGATE_OPERATOR", "FACTOR_PASSWORD");
            Principal ana = current.get().orElseThrow();
            assertThat(ana.id()).isEqualTo("ana");
            assertThat(ana.accessRules()).containsExactlyInAnyOrder("ROLE_SUPPORT", "incident.read", "incident.create",
                    "crm.read", "ROLE_TOOLGATE_OPERATOR", GateSettings.DEFAULT_APPROVER_RULE, "FACTOR_PASSWORD");
        });
    }

    @Test
    void nobodyWhenSignedOutAnonymousOrUnauthenticated() {
        runner.run(context -> {
            CurrentPrincipal current = context.getBean(CurrentPrincipal.class);
            assertThat(current.get()).isEmpty();
            SecurityContextHolder.getContext().setAuthentication(new AnonymousAuthenticationToken("key", "anonymousUser",
                    AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")));
            assertThat(current.get()).isEmpty();
            SecurityContextHolder.getContext().setAuthentication(
                    UsernamePasswordAuthenticationToken.unauthenticated("mallory", "guess"));
            assertThat(current.get()).isEmpty();
        });
    }

    @Test
    void anAuthorityNeverGrantsEverythingAndOddOnesAreNoRules() {
        runner.run(context -> {
            signIn("eve", "*", "incident.*", "https://evil.example/role", "has space", "ROLE_USER");
            assertThat(context.getBean(CurrentPrincipal.class).get().orElseThrow().accessRules())
                    .containsExactly("ROLE_USER");
        });
    }

    @Test
    void authoritiesAsRulesOffKeepsOnlyTheMappedOnes() {
        runner.withPropertyValues("toolgate.security.authorities-as-rules=false").run(context -> {
            signIn("ana", "ROLE_SUPPORT", "SCOPE_crm.read");
            assertThat(context.getBean(CurrentPrincipal.class).get().orElseThrow().accessRules())
                    .containsExactlyInAnyOrder("incident.read", "incident.create");
        });
    }

    @Test
    void theApplicationsMapperWins() {
        runner.withBean(ToolgatePrincipalMapper.class, () -> auth -> Optional.of(Principal.application("svc-" + auth.getName(), "x")))
                .run(context -> {
                    signIn("bot", "ROLE_SUPPORT");
                    assertThat(context.getBean(CurrentPrincipal.class).get().orElseThrow().id()).isEqualTo("svc-bot");
                });
    }

    @Test
    void withoutSpringSecurityThereIsNoDefaultPrincipal() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(CurrentPrincipal.class)
                        .doesNotHaveBean("toolgatePrincipalMapper"));
    }

    static void signIn(String name, String... authorities) {
        TestingAuthenticationToken token = new TestingAuthenticationToken(name, "n/a", List.of(authorities).stream()
                .map(org.springframework.security.core.authority.SimpleGrantedAuthority::new).toList());
        token.setAuthenticated(true);
        SecurityContextHolder.getContext().setAuthentication(token);
    }
}
