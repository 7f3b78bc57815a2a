package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.console.ConsoleAuthenticator;
import dev.toolgate.console.ToolgateConsole;
import dev.toolgate.call.CallContext;
import jakarta.servlet.http.HttpServlet;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;

/**
 * The operator console in the application's own servlet container, under {@code toolgate.console.path}
 * (default {@code /toolgate}), when {@code toolgate.console.enabled=true}.
 *
 * <p>Who may use it: with Spring Security, the person the application's security chain signed in
 * (any mechanism), if they hold the role {@code toolgate.console.operator-role}; others get 403.
 * Without Spring Security, the application's {@link ConsoleAuthenticator} bean checks the console's
 * own sign-in form. With neither, the application does not start: the console is never open to
 * everybody. Either way the gate re-checks the approver rule on every decision.
 */
@AutoConfiguration(after = {ToolgateAutoConfiguration.class, ToolgateSecurityAutoConfiguration.class})
@ConditionalOnClass({ToolgateConsole.class, HttpServlet.class, ServletRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty("toolgate.console.enabled")
@ConditionalOnBean(Toolgate.class)
public class ToolgateConsoleAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateConsoleAutoConfiguration.class);

    /** The console, signing people in through the application's security or the host's authenticator. */
    @Bean
    @ConditionalOnMissingBean
    ToolgateConsole toolgateConsole(Toolgate toolgate, ToolgateProperties properties,
                                    ObjectProvider<ConsoleAuthenticator> authenticator,
                                    ObjectProvider<ToolgatePrincipalMapper> mapper) {
        properties.validate();
        ToolgateProperties.Console settings = properties.getConsole();
        ToolgateConsole.Builder builder = ToolgateConsole.builder(toolgate)
                .secureCookie(settings.isSecureCookie())
                .sessionTimeout(settings.getSessionTimeout())
                .allowedOrigins(settings.getAllowedOrigins());
        ConsoleAuthenticator own = authenticator.getIfUnique();
        if (own != null) {
            builder.authenticator(own);
        } else if (mapper.getIfUnique() != null) { // Spring Security is there
            builder.hostSignIn();
        } else {
            throw new InvalidToolgatePropertyException("toolgate.console.enabled", true,
                    "false unless the application has Spring Security or defines a ConsoleAuthenticator bean"
                            + " (the console is never open to everybody)");
        }
        return builder.build();
    }

    /** The console's servlet, at {@code toolgate.console.path}. */
    @Bean
    ServletRegistrationBean<HttpServlet> toolgateConsoleServlet(ToolgateConsole console, ToolgateProperties properties,
                                                                ObjectProvider<ConsoleAuthenticator> authenticator,
                                                                ObjectProvider<ToolgatePrincipalMapper> mapper) {
        ConsoleServlet.HostIdentity identity = authenticator.getIfUnique() == null
                ? SpringSecurityIdentity.of(mapper.getObject(), properties.getConsole().getOperatorRole())
                : null;
        String path = properties.getConsole().getPath();
        ServletRegistrationBean<HttpServlet> registration =
                new ServletRegistrationBean<>(new ConsoleServlet(console, identity), path, path + "/*");
        registration.setName("toolgateConsole");
        LOG.info("Toolgate console at {}/ ({})", path, identity != null
                ? "signed in through Spring Security, role " + properties.getConsole().getOperatorRole()
                : "signed in by the application's ConsoleAuthenticator");
        return registration;
    }

    /** The identity Spring Security established for a request, and the operator role it must hold. */
    static final class SpringSecurityIdentity {

        private SpringSecurityIdentity() {
        }

        static ConsoleServlet.HostIdentity of(ToolgatePrincipalMapper mapper, String operatorRole) {
            String authority = "ROLE_" + operatorRole;
            return request -> {
                org.springframework.security.core.Authentication authentication =
                        org.springframework.security.core.context.SecurityContextHolder.getContext().getAuthentication();
                Optional<Principal> principal = ToolgateSecurityAutoConfiguration.principalOf(authentication, mapper);
                if (principal.isEmpty()) {
                    return Optional.empty();
                }
                boolean operator = authentication.getAuthorities().stream().anyMatch(a -> authority.equals(a.getAuthority()));
                if (!operator) {
                    throw new ConsoleServlet.Refusal("The console needs the role " + operatorRole + ".");
                }
                return Optional.of(CallContext.of(principal.get()));
            };
        }
    }
}
