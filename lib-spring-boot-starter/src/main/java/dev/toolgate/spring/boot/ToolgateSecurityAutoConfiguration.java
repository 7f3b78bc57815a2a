package dev.toolgate.spring.boot;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;

/**
 * The principal from Spring Security: the current request's {@link Authentication} through the
 * {@link ToolgatePrincipalMapper} (the starter's {@code toolgate.security.*} mapping unless the
 * application defines one). On a servlet web application it also exempts the console's and the MCP
 * endpoint's paths from Spring Security's CSRF token, which neither a browser page of the console
 * (it sends its own, checked with the Origin) nor an MCP client can send; authentication and
 * authorization of those paths stay the application's security chain's.
 */
@AutoConfiguration(before = ToolgateAutoConfiguration.class)
@ConditionalOnClass({Authentication.class, SecurityContextHolder.class})
@org.springframework.boot.context.properties.EnableConfigurationProperties(ToolgateProperties.class)
public class ToolgateSecurityAutoConfiguration {

    /** The default mapping, from {@code toolgate.security.*} and the console's operator role. */
    @Bean
    @ConditionalOnMissingBean
    ToolgatePrincipalMapper toolgatePrincipalMapper(ToolgateProperties properties) {
        properties.validate();
        return new AuthorityRules(properties);
    }

    /** The principal of the request on this thread, from Spring Security's context. */
    @Bean
    @ConditionalOnMissingBean
    CurrentPrincipal toolgateCurrentPrincipal(ToolgatePrincipalMapper mapper) {
        return () -> principalOf(SecurityContextHolder.getContext().getAuthentication(), mapper);
    }

    static Optional<dev.toolgate.access.Principal> principalOf(Authentication authentication, ToolgatePrincipalMapper mapper) {
        if (!AuthorityRules.isSignedIn(authentication)) {
            return Optional.empty();
        }
        Optional<dev.toolgate.access.Principal> principal = mapper.principalOf(authentication);
        return principal == null ? Optional.empty() : principal;
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({HttpSecurity.class, PathPatternRequestMatcher.class})
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    static class Web {

        /** Applied by Spring Security to every {@code HttpSecurity} the application builds. */
        @Bean
        Customizer<HttpSecurity> toolgateCsrfExemption(ToolgateProperties properties) {
            List<RequestMatcher> matchers = new ArrayList<>();
            if (properties.getConsole().isEnabled()) {
                matchers.add(PathPatternRequestMatcher.withDefaults().matcher(properties.getConsole().getPath() + "/**"));
            }
            if (properties.getMcp().isEnabled()) {
                matchers.add(PathPatternRequestMatcher.withDefaults().matcher(properties.getMcp().getPath()));
                matchers.add(PathPatternRequestMatcher.withDefaults().matcher(properties.getMcp().getPath() + "/**"));
            }
            if (matchers.isEmpty()) {
                return http -> { };
            }
            RequestMatcher[] exempt = matchers.toArray(RequestMatcher[]::new);
            return http -> http.csrf(csrf -> csrf.ignoringRequestMatchers(exempt));
        }
    }
}
