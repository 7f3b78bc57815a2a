package dev.toolgate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import dev.toolgate.access.Principal;
import dev.toolgate.console.ConsoleAuthenticator;
import dev.toolgate.console.ToolgateConsole;
import dev.toolgate.call.CallContext;
import dev.toolgate.json.Json;
import dev.toolgate.mcp.McpRequestAuthenticator;
import dev.toolgate.mcp.McpServletEndpoint;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import tools.jackson.databind.JsonNode;

/** Each part of the starter switches on with what the application has, and never opens a door by default. */
class ConditionsTest {

    static {
        ClassesStartedFirst.now();
    }

    private final WebApplicationContextRunner web = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ToolgateSecurityAutoConfiguration.class, ToolgateMetricsAutoConfiguration.class,
                    ToolgateAutoConfiguration.class, ToolgateSpringAiAutoConfiguration.class, ToolgateConsoleAutoConfiguration.class,
                    ToolgateMcpAutoConfiguration.class, ToolgateHealthAutoConfiguration.class, ToolgateInfoAutoConfiguration.class))
            .withPropertyValues("toolgate.discover-plugins=false", "toolgate.store=memory")
            .withBean(Incidents.class);

    @Test
    void consoleAndMcpAreOffUnlessEnabled() {
        web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ToolgateConsole.class)
                .doesNotHaveBean(McpServletEndpoint.class).doesNotHaveBean("toolgateConsoleServlet"));
    }

    @Test
    void withSpringSecurityTheConsoleSignsInThroughTheApplication() {
        web.withPropertyValues("toolgate.console.enabled=true", "toolgate.console.path=/ops").run(context -> {
            ServletRegistrationBean<?> servlet = context.getBean("toolgateConsoleServlet", ServletRegistrationBean.class);
            assertThat(servlet.getUrlMappings()).containsExactly("/ops", "/ops/*");
            ToolgateConsole console = context.getBean(ToolgateConsole.class);
            // host sign-in: the console's own sign-in form is refused
            String page = console.handle(dev.toolgate.console.ConsoleRequest.builder("GET", "/ops", "/").build()).bodyText();
            assertThat(page).contains("host");
        });
    }

    @Test
    void withoutSpringSecurityTheConsoleNeedsTheApplicationsAuthenticator() {
        WebApplicationContextRunner noSecurity = web.withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .withPropertyValues("toolgate.console.enabled=true");
        noSecurity.run(context -> {
            assertThat(context).hasFailed();
            InvalidToolgatePropertyException e = StoreConfigurationTest.cause(context.getStartupFailure(),
                    InvalidToolgatePropertyException.class);
            assertThat(e.property()).isEqualTo("toolgate.console.enabled");
            assertThat(e.getMessage()).contains("ConsoleAuthenticator").contains("never open to everybody");
        });
        ConsoleAuthenticator users = login -> login.user().equals("olga") && login.secret().equals("s3cret")
                ? Optional.of(CallContext.of(Principal.user("olga", "toolgate.approvals.manage"))) : Optional.empty();
        noSecurity.withBean(ConsoleAuthenticator.class, () -> users).run(context -> {
            ToolgateConsole console = context.getBean(ToolgateConsole.class);
            String body = Json.object().put("user", "olga").put("secret", "s3cret").toString();
            dev.toolgate.console.ConsoleResponse login = console.handle(dev.toolgate.console.ConsoleRequest
                    .builder("POST", "/toolgate", "/api/login").header("Host", "localhost").header("Origin", "http://localhost")
                    .header("Content-Type", "application/json")
                    .body(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)).build());
            assertThat(login.status()).as(login.bodyText()).isEqualTo(200);
            assertThat(Json.parse(login.bodyText()).path("signIn").asString()).isEqualTo("console");
        });
    }

    @Test
    void theMcpEndpointNeedsAnAuthenticatorOrSpringSecurity() {
        WebApplicationContextRunner noSecurity = web.withClassLoader(new FilteredClassLoader("org.springframework.security"))
                .withPropertyValues("toolgate.mcp.enabled=true");
        noSecurity.run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreConfigurationTest.cause(context.getStartupFailure(), InvalidToolgatePropertyException.class)
                    .getMessage()).contains("McpRequestAuthenticator");
        });
        noSecurity.withBean(McpRequestAuthenticator.class, () -> request -> Optional.empty()).run(context -> {
            McpServletEndpoint endpoint = context.getBean(McpServletEndpoint.class);
            assertThat(endpoint.path()).isEqualTo("/mcp");
            ServletRegistrationBean<?> servlet = context.getBean("toolgateMcpServlet", ServletRegistrationBean.class);
            assertThat(servlet.getUrlMappings()).containsExactly("/mcp");
        });
        web.withPropertyValues("toolgate.mcp.enabled=true", "toolgate.mcp.path=/agents/mcp")
                .run(context -> assertThat(context.getBean(McpServletEndpoint.class).path()).isEqualTo("/agents/mcp"));
    }

    @Test
    void withoutTheMcpModuleThereIsNoEndpointEvenWhenEnabled() {
        web.withClassLoader(new FilteredClassLoader("dev.toolgate.mcp", "io.modelcontextprotocol"))
                .withPropertyValues("toolgate.mcp.enabled=true")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("toolgateMcpServlet"));
    }

    @Test
    void micrometerObservesCallsWhenTheApplicationHasRegistries() {
        ObservationRegistry observations = ObservationRegistry.create();
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        web.withBean(ObservationRegistry.class, () -> observations).withBean(SimpleMeterRegistry.class, () -> meters).run(context -> {
            context.getBean(Toolgate.class).call(CallContext.of(Principal.user("ana", "incident.read")), "incident.list", "{}");
            assertThat(meters.find("toolgate.calls").counter()).isNotNull();
            assertThat(meters.find("toolgate.proposals.pending").gauge()).isNotNull();
        });
        web.withBean(ObservationRegistry.class, () -> observations).withPropertyValues("toolgate.metrics.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("toolgateObservability"));
        // without toolgate-micrometer, or without an observation registry (no Actuator): no metrics, the gate as ever
        // (Micrometer itself is not filtered: its context-propagation registry would fail its static start for the JVM)
        web.withBean(ObservationRegistry.class, () -> observations).withClassLoader(new FilteredClassLoader("dev.toolgate.micrometer"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("toolgateObservability").hasSingleBean(Toolgate.class));
        web.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("toolgateObservability"));
    }

    @Test
    void actuatorPartsComeWithActuator() {
        web.run(context -> assertThat(context).hasBean("toolgateHealthIndicator").hasBean("toolgateInfoContributor"));
        web.withPropertyValues("management.health.toolgate.enabled=false", "management.info.toolgate.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean("toolgateHealthIndicator").doesNotHaveBean("toolgateInfoContributor"));
        web.withClassLoader(new FilteredClassLoader("org.springframework.boot.health", "org.springframework.boot.actuate"))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean("toolgateHealthIndicator"));
    }

    @Test
    void healthIsDownWhenTheStoreCannotBeRead() {
        web.withPropertyValues("toolgate.store=auto")
                .withBean(javax.sql.DataSource.class, () -> {
                    org.h2.jdbcx.JdbcDataSource h2 = new org.h2.jdbcx.JdbcDataSource();
                    h2.setURL("jdbc:h2:mem:starter-health;DB_CLOSE_DELAY=-1");
                    return h2;
                })
                .run(context -> {
                    HealthIndicator health = context.getBean("toolgateHealthIndicator", HealthIndicator.class);
                    assertThat(health.health().getStatus().getCode()).isEqualTo("UP");
                    try (java.sql.Connection c = context.getBean(javax.sql.DataSource.class).getConnection()) {
                        c.createStatement().execute("DROP TABLE toolgate_call");
                    }
                    org.springframework.boot.health.contributor.Health down = health.health();
                    assertThat(down.getStatus().getCode()).isEqualTo("DOWN");
                    assertThat(down.getDetails()).containsEntry("store", "unreachable").containsKey("error");
                });
    }

    @Test
    void healthNamesEachToolSourceAndCountsTheOnesDown() {
        dev.toolgate.source.ToolSource down = new dev.toolgate.source.ToolSource() {
            @Override
            public String id() {
                return "mcp:tickets";
            }

            @Override
            public java.util.List<dev.toolgate.source.SourceTool> listTools(dev.toolgate.source.SourceContext context) {
                throw new IllegalStateException("connection refused");
            }

            @Override
            public tools.jackson.databind.JsonNode callTool(String tool, tools.jackson.databind.JsonNode arguments,
                                                           dev.toolgate.source.SourceContext context) {
                throw new IllegalStateException("down");
            }
        };
        web.withBean(dev.toolgate.source.ToolSource.class, () -> down).run(context -> {
            context.getBean(Toolgate.class).refreshSources();
            org.springframework.boot.health.contributor.Health health =
                    context.getBean("toolgateHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus().getCode()).isEqualTo("UP"); // a source down does not take the application down
            assertThat(health.getDetails()).containsEntry("sourcesUnavailable", 1);
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> sources = (Map<String, Map<String, Object>>) health.getDetails().get("sources");
            assertThat(sources.get("mcp:tickets")).containsEntry("state", "unavailable");
        });
    }

    @Test
    void theConfigurationMetadataDocumentsEveryProperty() throws Exception {
        JsonNode metadata;
        try (InputStream in = ToolgateProperties.class.getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated by spring-boot-configuration-processor").isNotNull();
            metadata = Json.parse(new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
        }
        Map<String, JsonNode> byName = new HashMap<>();
        metadata.path("properties").forEach(p -> byName.put(p.path("name").asString(), p));
        for (String name : new String[] {"toolgate.store", "toolgate.schema", "toolgate.budget.calls", "toolgate.budget.window",
                "toolgate.proposal-ttl", "toolgate.require-distinct-approver", "toolgate.console.enabled", "toolgate.console.path",
                "toolgate.console.operator-role", "toolgate.mcp.enabled", "toolgate.mcp.consent", "toolgate.spring-ai.consent",
                "toolgate.security.authority-rules", "toolgate.retention.finished-calls", "toolgate.metrics.enabled"}) {
            assertThat(byName).containsKey(name);
            assertThat(byName.get(name).path("description").asString()).as(name).isNotBlank();
        }
        assertThat(byName.get("toolgate.budget.calls").path("defaultValue").asInt()).isEqualTo(60);
        assertThat(byName.get("toolgate.console.path").path("defaultValue").asString()).isEqualTo("/toolgate");
        for (JsonNode property : metadata.path("properties")) {
            assertThat(property.path("description").asString()).as(property.path("name").asString()).isNotBlank();
        }
    }
}
