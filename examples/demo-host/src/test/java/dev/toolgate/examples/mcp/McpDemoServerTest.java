package dev.toolgate.examples.mcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.toolgate.access.PrincipalKind;
import dev.toolgate.policy.PermissionMode;
import org.junit.jupiter.api.Test;

class McpDemoServerTest {

    @Test
    void defaults() {
        McpDemoServer.Options options = McpDemoServer.Options.parse(new String[0]);
        assertThat(options).isEqualTo(new McpDemoServer.Options("stdio", "carol", 8765, "127.0.0.1",
                McpDemoServer.DEFAULT_DB, PermissionMode.APPROVE, 60, 600, -1, -1, dev.toolgate.call.Consent.USER));
    }

    @Test
    void everyOption() {
        McpDemoServer.Options options = McpDemoServer.Options.parse(new String[] {"--transport", "http", "--principal", "bob",
                "--port=9000", "--bind", "0.0.0.0", "--db", "memory", "--mode", "AUTO", "--budget", "0", "--ttl", "30", "--console-port", "8766",
                "--metrics-port", "9464", "--consent", "USER"});
        assertThat(options).isEqualTo(new McpDemoServer.Options("http", "bob", 9000, "0.0.0.0", "memory",
                PermissionMode.AUTO, 0, 30, 8766, 9464, dev.toolgate.call.Consent.USER));
        assertThat(McpDemoServer.Options.parse(new String[] {"--consent", "operator"}).consent())
                .isEqualTo(dev.toolgate.call.Consent.OPERATOR);
    }

    @Test
    void badOptionsAreRefused() {
        assertThatThrownBy(() -> McpDemoServer.Options.parse(new String[] {"--transport", "carrier-pigeon"})).hasMessageContaining("stdio or http");
        assertThatThrownBy(() -> McpDemoServer.Options.parse(new String[] {"--consent", "nobody"})).hasMessageContaining("user or operator");
        assertThatThrownBy(() -> McpDemoServer.Options.parse(new String[] {"--consent", "operator", "--mode", "auto"}))
                .hasMessageContaining("--mode auto");
        assertThatThrownBy(() -> McpDemoServer.Options.parse(new String[] {"--principal", "mallory"})).hasMessageContaining("--principal");
        assertThatThrownBy(() -> McpDemoServer.Options.parse(new String[] {"--port", "99999"})).hasMessageContaining("--port");
        assertThatThrownBy(() -> McpDemoServer.Options.parse(new String[] {"--budget"})).hasMessageContaining("needs a value");
        assertThatThrownBy(() -> McpDemoServer.Options.parse(new String[] {"--verbose"})).hasMessageContaining("unknown option");
        assertThatThrownBy(() -> McpDemoServer.Options.parse(new String[] {"--metrics-port", "-2"})).hasMessageContaining("--metrics-port");
    }

    @Test
    void theStartupSaysWhereTheIncidentsLive() {
        assertThat(McpDemoServer.storageNote(McpDemoServer.DEFAULT_DB)).contains("persist in " + McpDemoServer.DEFAULT_DB)
                .contains("the incidents are this process's sample data in memory");
        assertThat(McpDemoServer.storageNote("memory")).contains("everything in memory");
    }

    @Test
    void demoTokensMapToTheDemoPrincipals() {
        assertThat(McpDemoServer.TOKENS).containsOnlyKeys("alice-token", "bob-token", "carol-token", "reporter-token");
        assertThat(McpDemoServer.TOKENS.get("carol-token").holds("incident.incident.manage")).isTrue();
        assertThat(McpDemoServer.TOKENS.get("bob-token").holds("incident.incident.manage")).isFalse();
        assertThat(McpDemoServer.TOKENS.get("reporter-token").kind()).isEqualTo(PrincipalKind.SERVICE);
    }
}
