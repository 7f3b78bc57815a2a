package dev.toolgate.spring.boot;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.mcp.McpRequestAuthenticator;
import dev.toolgate.mcp.McpServletEndpoint;
import dev.toolgate.mcp.ToolgateMcpServer;
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
 * The governed tools over the Model Context Protocol (Streamable HTTP) in the application's servlet
 * container, at {@code toolgate.mcp.path} (default {@code /mcp}), when {@code toolgate.mcp.enabled=true}
 * and {@code toolgate-mcp} is on the classpath.
 *
 * <p>Each request's principal: the application's {@link McpRequestAuthenticator} bean (bearer tokens,
 * a client certificate), else the {@code Authentication} the application's Spring Security chain
 * established for the request (an OAuth2 resource server, HTTP Basic) through the
 * {@link ToolgatePrincipalMapper}. Without either the application does not start.
 */
@AutoConfiguration(after = {ToolgateAutoConfiguration.class, ToolgateSecurityAutoConfiguration.class})
@ConditionalOnClass({McpServletEndpoint.class, HttpServlet.class, ServletRegistrationBean.class})
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty("toolgate.mcp.enabled")
@ConditionalOnBean(Toolgate.class)
public class ToolgateMcpAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(ToolgateMcpAutoConfiguration.class);

    /** The endpoint; closed with the context (its sessions end, the gate stays). */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    McpServletEndpoint toolgateMcpEndpoint(Toolgate toolgate, ToolgateProperties properties,
                                           ObjectProvider<McpRequestAuthenticator> authenticator,
                                           ObjectProvider<ToolgatePrincipalMapper> mapper) {
        properties.validate();
        McpRequestAuthenticator who = authenticator.getIfUnique();
        if (who == null && mapper.getIfUnique() != null) { // Spring Security is there
            who = fromSecurityContext(mapper.getObject());
        }
        if (who == null) {
            throw new InvalidToolgatePropertyException("toolgate.mcp.enabled", true,
                    "false unless the application has Spring Security or defines a McpRequestAuthenticator bean"
                            + " (the endpoint is never open to everybody)");
        }
        ToolgateProperties.Mcp settings = properties.getMcp();
        dev.toolgate.mcp.McpServletBuilder builder = ToolgateMcpServer.servlet(toolgate, who)
                .endpoint(settings.getPath())
                .consent(settings.getConsent())
                .permissionMode(settings.getPermissionMode());
        if (!settings.getAllowedOrigins().isEmpty()) { // else the endpoint's default: loopback origins only
            builder.allowedOrigins(settings.getAllowedOrigins().toArray(String[]::new));
        }
        McpServletEndpoint endpoint = builder.build();
        LOG.info("Toolgate MCP endpoint at {} (consent {})", settings.getPath(), settings.getConsent().name().toLowerCase(java.util.Locale.ROOT));
        return endpoint;
    }

    /** The endpoint's servlet, asynchronous as the MCP transport needs. */
    @Bean
    ServletRegistrationBean<HttpServlet> toolgateMcpServlet(McpServletEndpoint endpoint) {
        ServletRegistrationBean<HttpServlet> registration = new ServletRegistrationBean<>(endpoint.servlet(), endpoint.path());
        registration.setName("toolgateMcp");
        registration.setAsyncSupported(true);
        return registration;
    }

    private static McpRequestAuthenticator fromSecurityContext(ToolgatePrincipalMapper mapper) {
        return request -> {
            Optional<Principal> principal = ToolgateSecurityAutoConfiguration.principalOf(
                    org.springframework.security.core.context.SecurityContextHolder.getContext().getAuthentication(), mapper);
            return principal;
        };
    }
}
