package dev.toolgate.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.toolgate.Toolgate;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** A wrong toolgate.* value stops the start, naming the property and what is accepted; nothing is built. */
class PropertyValidationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ToolgateAutoConfiguration.class))
            .withPropertyValues("toolgate.discover-plugins=false", "toolgate.store=memory");

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "toolgate.budget.calls=0                       | toolgate.budget.calls            | at least 1",
            "toolgate.budget.window=10ms                   | toolgate.budget.window           | at least 1s",
            "toolgate.proposal-ttl=0s                      | toolgate.proposal-ttl            | a positive duration",
            "toolgate.execution-timeout=-5s                | toolgate.execution-timeout       | a positive duration",
            "toolgate.max-pending-per-session=0            | toolgate.max-pending-per-session | at least 1",
            "toolgate.result-limit=10B                     | toolgate.result-limit            | between 1KB and 2GB",
            "toolgate.approver-rule=approve all            | toolgate.approver-rule           | an access rule",
            "toolgate.approver-rule=*                      | toolgate.approver-rule           | an access rule",
            "toolgate.console.path=toolgate                | toolgate.console.path            | starts with '/'",
            "toolgate.console.path=/toolgate/              | toolgate.console.path            | no trailing '/'",
            "toolgate.console.path=/a/../b                 | toolgate.console.path            | starts with '/'",
            "toolgate.console.operator-role=ROLE_OPS       | toolgate.console.operator-role   | without the ROLE_ prefix",
            "toolgate.console.allowed-origins=*            | toolgate.console.allowed-origins | an origin such as",
            "toolgate.mcp.allowed-origins=javascript:x     | toolgate.mcp.allowed-origins     | an origin such as",
            "toolgate.spring-ai.plugin-id=My App           | toolgate.spring-ai.plugin-id     | a lower-case id",
            "toolgate.spring-ai.max-calls-per-turn=0       | toolgate.spring-ai.max-calls-per-turn | at least 1",
            "toolgate.security.authority-rules.ROLE_X=a b  | toolgate.security.authority-rules.ROLE_X | an access rule",
    })
    void aWrongValueIsNamed(String setting, String property, String expected) {
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            InvalidToolgatePropertyException e = StoreConfigurationTest.cause(context.getStartupFailure(),
                    InvalidToolgatePropertyException.class);
            assertThat(e.property()).isEqualTo(property);
            assertThat(e.getMessage()).contains(expected);
            FailureAnalysis analysis = new ToolgateFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis.getDescription()).contains(property);
            assertThat(analysis.getAction()).contains(expected);
        });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "toolgate.mcp.consent=operator,toolgate.mcp.permission-mode=auto | toolgate.mcp.permission-mode",
            "toolgate.console.enabled=true,toolgate.mcp.enabled=true,toolgate.mcp.path=/toolgate | toolgate.mcp.path",
    })
    void settingsThatContradictEachOtherAreRefused(String settings, String property) {
        runner.withPropertyValues(settings.split(",")).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreConfigurationTest.cause(context.getStartupFailure(), InvalidToolgatePropertyException.class)
                    .property()).isEqualTo(property);
        });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "toolgate.budget.calls=many   | toolgate.budget.calls",
            "toolgate.schema=drop         | toolgate.schema",
            "toolgate.store=redis         | toolgate.store",
            "toolgate.spring-ai.consent=model | toolgate.spring-ai.consent",
    })
    void aValueOfTheWrongTypeIsRefusedByBinding(String setting, String property) {
        runner.withPropertyValues(setting).run(context -> {
            assertThat(context).hasFailed();
            assertThat(StoreConfigurationTest.rootMessage(context.getStartupFailure())).contains(property);
        });
    }

    @org.junit.jupiter.api.Test
    @org.junit.jupiter.api.extension.ExtendWith(org.springframework.boot.test.system.OutputCaptureExtension.class)
    void springBootsFailureReportNamesThePropertyAndWhatIsAccepted(org.springframework.boot.test.system.CapturedOutput output) {
        org.springframework.boot.SpringApplication app = new org.springframework.boot.SpringApplication(Empty.class);
        app.setWebApplicationType(org.springframework.boot.WebApplicationType.NONE);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> app.run("--toolgate.budget.calls=0", "--toolgate.store=memory",
                "--toolgate.discover-plugins=false")).hasRootCauseInstanceOf(InvalidToolgatePropertyException.class);
        assertThat(output).contains("APPLICATION FAILED TO START")
                .contains("Toolgate cannot start: toolgate.budget.calls is 0.")
                .contains("Set toolgate.budget.calls to at least 1");
    }

    @org.springframework.boot.SpringBootConfiguration
    @org.springframework.boot.autoconfigure.ImportAutoConfiguration(ToolgateAutoConfiguration.class)
    static class Empty {
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "toolgate.console.path=/ops/toolgate",
            "toolgate.mcp.allowed-origins=https://claude.ai",
            "toolgate.security.authority-rules.ROLE_SUPPORT=incident.read,incident.create",
            "toolgate.spring-ai.plugin-id=crm-app",
    })
    void goodValuesStart(String setting) {
        runner.withPropertyValues(setting).run(context -> assertThat(context).hasNotFailed().hasSingleBean(Toolgate.class));
    }
}
